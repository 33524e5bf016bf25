import Foundation

/// A failure of the link, already reported (the server marked down).
struct RedisLinkFailure: Error {
    let error: RedisError
}

/// The thread's connection to Redis: made on demand, dropped on failure,
/// not tried again until the reconnect delay has passed.
struct RedisLink {
    private let configuration: RedisLinkSettings
    private let health: any RedisHealthObserver
    private var connection: RedisConnection?
    /// Script digests from `SCRIPT LOAD`, by script; cleared with the connection.
    private var scripts: [String: [UInt8]] = [:]
    /// While the server is down: the earliest next attempt.
    private var retryAt: ContinuousClock.Instant?

    init(_ configuration: RedisLinkSettings, health: any RedisHealthObserver) {
        self.configuration = configuration
        self.health = health
    }

    mutating func connected() throws(RedisLinkFailure) -> RedisConnection {
        if let connection { return connection }
        if let retryAt, ContinuousClock.now < retryAt {
            throw RedisLinkFailure(
                error: RedisError(.unavailable, "Redis at \(configuration.endpoint) is down; retrying later"))
        }
        do {
            let made = try RedisConnection(configuration)
            connection = made
            if retryAt != nil {
                retryAt = nil
                health.recovered()
            }
            health.connected()
            return made
        } catch {
            throw lost(error)
        }
    }

    mutating func digest(of source: String, on connection: RedisConnection) throws(RedisLinkFailure)
        -> [UInt8]
    {
        if let known = scripts[source] { return known }
        let reply = try pipeline(
            [[Array("SCRIPT".utf8), Array("LOAD".utf8), Array(source.utf8)]], on: connection)[0]
        guard case .bulk(let digest) = reply else {
            throw RedisLinkFailure(error: RedisError(.database, "SCRIPT LOAD answered \(reply)"))
        }
        scripts[source] = digest
        return digest
    }

    mutating func forget(_ source: String) { scripts[source] = nil }

    /// The command line for `request`: a script becomes `EVALSHA`.
    mutating func arguments(for request: RedisWorker.Request, on connection: RedisConnection)
        throws(RedisLinkFailure)
        -> [[UInt8]]
    {
        switch request {
        case .command(let arguments): return arguments
        case .script(let source, let keys, let arguments):
            let digest = try digest(of: source, on: connection)
            return [Array("EVALSHA".utf8), digest, Array(String(keys.count).utf8)]
                + keys.map { Array($0.utf8) }
                + arguments
        }
    }

    mutating func pipeline(_ commands: [[[UInt8]]], on connection: RedisConnection) throws(RedisLinkFailure)
        -> [RedisReply]
    {
        do {
            return try connection.pipeline(commands)
        } catch {
            throw lost(error)
        }
    }

    mutating func close() {
        connection?.close()
        connection = nil
    }

    /// Drops the connection and marks the server down until the reconnect delay has passed.
    private mutating func lost(_ error: RedisConnectionError) -> RedisLinkFailure {
        connection = nil
        scripts = [:]
        if retryAt == nil { health.wentDown(reason: error.description) }
        health.failed()
        retryAt = ContinuousClock.now.advanced(by: configuration.reconnectDelay)
        return RedisLinkFailure(
            error: RedisError(
                error.isTimeout ? .timeout : .unavailable,
                "Redis at \(configuration.endpoint): \(error.description)",
                underlying: error))
    }
}
