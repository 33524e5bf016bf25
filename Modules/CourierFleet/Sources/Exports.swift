// Where the fleet's Redis is (`RedisEndpoint`, `RedisCredentials`), and the
// rate limiter its store plugs into: whoever imports the fleet can name them.
@_exported import CourierRedis
@_exported import CourierResilience
