public import CourierRedis
public import Logging
public import Metrics

extension RedisStore {
    /// Where the Redis store connects, how, and what it may keep.
    public struct Configuration: Sendable {
        /// The server: host and port, or a Unix socket.
        public var endpoint: Endpoint
        /// `AUTH` after connecting: a password, or an ACL user and password.
        public var credentials: Credentials?
        /// The app's name in the keys (`courier:{<namespace>:v<version>}:…`),
        /// so that several apps share one Redis without seeing each other's
        /// entries. `{` and `}` are replaced by `_`.
        public var namespace: String
        /// The cache's version in the keys: change it to start from an empty
        /// cache (old entries expire or are evicted by the server).
        public var version: Int
        /// The most bytes the namespace's entries may take, counted as
        /// ``/CourierCache/CacheEntry/size`` (body, fields and 64 bytes each):
        /// over it, the least recently read go first. Redis's own memory use
        /// is larger and is the server's `maxmemory` to bound. 256 MiB.
        public var sizeLimit: Int
        /// The most entries the namespace may hold: 100,000.
        public var countLimit: Int
        /// How long connecting may take: 250 ms.
        public var connectTimeout: Duration
        /// How long one command may take before the store gives up on it
        /// (the call is then a miss): 250 ms.
        public var commandTimeout: Duration
        /// After a failure, how long the store answers at once with
        /// ``CourierCache/CacheStoreError/Code/unavailable`` before it tries
        /// to connect again: 1 s. Calls never wait for a server that is down.
        public var reconnectDelay: Duration
        /// The most operations waiting for the store's thread; beyond it a
        /// call fails at once with ``CourierCache/CacheStoreError/Code/busy``
        /// (a miss, or a write not made) instead of queueing without bound.
        public var maxPendingOperations: Int
        /// Where the store reports losing and regaining the server: one
        /// warning when it goes down, one notice when it is back.
        public var logger: Logger
        /// Where `courier_cache_shared_failures` (a counter) and
        /// `courier_cache_shared_up` (1 or 0) go: the bootstrapped
        /// `MetricsSystem.factory` by default.
        public var metricsFactory: any MetricsFactory

        /// A configuration with the defaults above.
        public init(
            endpoint: Endpoint, credentials: Credentials? = nil, namespace: String, version: Int = 1,
            sizeLimit: Int = 256 << 20, countLimit: Int = 100_000,
            connectTimeout: Duration = .milliseconds(250),
            commandTimeout: Duration = .milliseconds(250), reconnectDelay: Duration = .seconds(1),
            maxPendingOperations: Int = 256, logger: Logger = Logger(label: "courier.cache.redis"),
            metricsFactory: any MetricsFactory = MetricsSystem.factory
        ) {
            self.endpoint = endpoint
            self.credentials = credentials
            self.namespace = namespace
            self.version = version
            self.sizeLimit = sizeLimit
            self.countLimit = countLimit
            self.connectTimeout = connectTimeout
            self.commandTimeout = commandTimeout
            self.reconnectDelay = reconnectDelay
            self.maxPendingOperations = maxPendingOperations
            self.logger = logger
            self.metricsFactory = metricsFactory
        }
    }

    /// A Redis server's address (`.tcp(host:port:)` or `.unixSocket(_:)`).
    public typealias Endpoint = RedisEndpoint

    /// What `AUTH` sends. Its description never shows the password.
    public typealias Credentials = RedisCredentials
}

extension RedisStore.Configuration {
    /// What the connection handling needs of this configuration.
    var linkSettings: RedisLinkSettings {
        RedisLinkSettings(
            endpoint: endpoint, credentials: credentials, connectTimeout: connectTimeout,
            commandTimeout: commandTimeout, reconnectDelay: reconnectDelay,
            maxPendingOperations: maxPendingOperations, threadName: "courier-redis-cache")
    }
}
