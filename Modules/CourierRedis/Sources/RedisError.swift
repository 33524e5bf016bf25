/// Why a Redis command did not give a reply: what the component above
/// (the cache's store, a fleet's state) turns into its own error.
package struct RedisError: Error, Sendable, CustomStringConvertible {
    package enum Code: Sendable, Hashable {
        /// The server is down, or the connection was lost.
        case unavailable
        /// The server did not answer within the command or connect timeout.
        case timeout
        /// Too many commands already wait for the thread.
        case busy
        /// The server answered with an error.
        case database
        /// The worker was stopped.
        case closed
    }

    package let code: Code
    package let message: String
    /// The connection's own failure, when there was one.
    package let underlying: (any Error & Sendable)?

    package init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    package var description: String { message }
}

/// Who hears that the server went away and came back: each component says
/// it in its own words (the cache: "serving from memory").
package protocol RedisHealthObserver: Sendable {
    /// A connection was made.
    func connected()
    /// A command or a connection failed.
    func failed()
    /// The server was lost (reported once until it is back).
    func wentDown(reason: String)
    /// The server is back after being down.
    func recovered()
}
