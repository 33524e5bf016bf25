/// A Redis server's address.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    package enum Address: Hashable, Sendable {
        case tcp(host: String, port: Int)
        case unixSocket(path: String)
    }

    package let address: Address

    /// A server on `host`:`port` (6379 by default).
    public static func tcp(host: String, port: Int = 6379) -> RedisEndpoint {
        RedisEndpoint(address: .tcp(host: host, port: port))
    }

    /// A server on a Unix socket.
    public static func unixSocket(_ path: String) -> RedisEndpoint {
        RedisEndpoint(address: .unixSocket(path: path))
    }

    /// `redis://host:port` or `unix:path`.
    public var description: String {
        switch address {
        case .tcp(let host, let port): "redis://\(host):\(port)"
        case .unixSocket(let path): "unix:\(path)"
        }
    }
}

/// What `AUTH` sends. Its description never shows the password.
public struct RedisCredentials: Sendable, CustomStringConvertible {
    /// The ACL user, or `nil` for the `default` user (`requirepass`).
    public var user: String?
    /// The password.
    public var password: String

    /// Credentials for `AUTH [user] password`.
    public init(user: String? = nil, password: String) {
        self.user = user
        self.password = password
    }

    /// `user <name>, password redacted`.
    public var description: String { "user \(user ?? "default"), password redacted" }
}

/// How a ``RedisWorker`` reaches its server: the part of a Redis-backed
/// component's configuration (the cache's store, a fleet's shared state)
/// that the connection handling needs.
package struct RedisLinkSettings: Sendable {
    package var endpoint: RedisEndpoint
    package var credentials: RedisCredentials?
    /// How long connecting may take.
    package var connectTimeout: Duration
    /// How long one command may take before it is given up.
    package var commandTimeout: Duration
    /// After a failure, how long commands fail at once before connecting again.
    package var reconnectDelay: Duration
    /// The most operations waiting for the thread; beyond, a command fails at once.
    package var maxPendingOperations: Int
    /// The thread's name.
    package var threadName: String

    package init(
        endpoint: RedisEndpoint, credentials: RedisCredentials?, connectTimeout: Duration,
        commandTimeout: Duration, reconnectDelay: Duration, maxPendingOperations: Int,
        threadName: String = "courier-redis"
    ) {
        self.endpoint = endpoint
        self.credentials = credentials
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.reconnectDelay = reconnectDelay
        self.maxPendingOperations = maxPendingOperations
        self.threadName = threadName
    }
}
