// The server's address and credentials (`RedisStore.Endpoint`,
// `RedisStore.Credentials`) are CourierRedis' types, shared with
// CourierFleet: whoever imports the store can name them.
@_exported import CourierRedis
