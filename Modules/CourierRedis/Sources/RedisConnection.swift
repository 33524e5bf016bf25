import CHiredis
import CourierCore

/// One blocking connection to Redis through hiredis. Not thread-safe: a
/// ``RedisWorker`` uses it from its own thread only, one batch at a time.
///
/// Every call either returns a reply or throws ``RedisConnectionError``;
/// after a throw the connection is unusable (hiredis' rule) and is closed.
package final class RedisConnection {
    private var context: UnsafeMutablePointer<redisContext>?

    /// Connects and, when the configuration has credentials, authenticates.
    /// - Throws: ``RedisConnectionError`` when the server cannot be reached
    ///   within the connect timeout or refuses the credentials.
    package init(_ configuration: RedisLinkSettings) throws(RedisConnectionError) {
        let connectTimeout = courier_redis_timeval(configuration.connectTimeout.microseconds)
        let opened: UnsafeMutablePointer<redisContext>? =
            switch configuration.endpoint.address {
            case .tcp(let host, let port): redisConnectWithTimeout(host, Int32(port), connectTimeout)
            case .unixSocket(let path): redisConnectUnixWithTimeout(path, connectTimeout)
            }
        guard let opened else { throw RedisConnectionError("cannot allocate a connection") }
        context = opened
        if opened.pointee.err != 0 {
            let reason = Self.reason(opened)
            close()
            throw RedisConnectionError("cannot connect to \(configuration.endpoint): \(reason)")
        }
        _ = redisSetTimeout(opened, courier_redis_timeval(configuration.commandTimeout.microseconds))
        _ = redisEnableKeepAlive(opened)
        if let credentials = configuration.credentials {
            var arguments = [Array("AUTH".utf8)]
            if let user = credentials.user { arguments.append(Array(user.utf8)) }
            arguments.append(Array(credentials.password.utf8))
            // The reply names no secret; the error says only that it was refused.
            if case .error(let message) = try command(arguments) {
                close()
                let code = message.split(separator: " ").first.map(String.init) ?? "ERR"
                throw RedisConnectionError("the server refused the credentials (\(code))")
            }
        }
    }

    deinit { close() }

    /// Sends one command (`arguments[0]` is its name) and reads its reply.
    /// An error *reply* is returned, not thrown: the connection is fine.
    /// - Throws: ``RedisConnectionError`` (connection lost) on an I/O error
    ///   or a timeout; the connection is closed then.
    package func command(_ arguments: [[UInt8]]) throws(RedisConnectionError) -> RedisReply {
        try pipeline([arguments])[0]
    }

    /// Sends several commands in one write and reads their replies, in
    /// order: one round trip for all of them.
    /// - Throws: ``RedisConnectionError`` (connection lost) on an I/O error
    ///   or a timeout; the connection is closed then, and no reply is returned.
    package func pipeline(_ commands: [[[UInt8]]]) throws(RedisConnectionError) -> [RedisReply] {
        guard let context else { throw RedisConnectionError("the connection is closed") }
        for arguments in commands where Self.append(arguments, to: context) != REDIS_OK {
            throw lose(context)
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            guard let reply = courier_redis_next_reply(context) else { throw lose(context) }
            replies.append(Self.copy(reply))
            freeReplyObject(reply)
        }
        return replies
    }

    private func lose(_ context: UnsafeMutablePointer<redisContext>) -> RedisConnectionError {
        var error = RedisConnectionError(Self.reason(context))
        error.isTimeout =
            error.description.contains("Resource temporarily unavailable")
            || error.description.contains("timed out")
        close()
        return error
    }

    /// Closes the connection (idempotent).
    package func close() {
        if let context { redisFree(context) }
        context = nil
    }

    private static func append(_ arguments: [[UInt8]], to context: UnsafeMutablePointer<redisContext>)
        -> Int32
    {
        // One buffer for every argument; hiredis copies them into its output
        // buffer before this returns.
        let lengths = arguments.map(\.count)
        let joined = arguments.flatMap { $0 }
        return joined.withUnsafeBufferPointer { buffer in
            var offset = 0
            var pointers: [UnsafePointer<CChar>?] = lengths.map { length in
                defer { offset += length }
                return buffer.baseAddress.map {
                    UnsafeRawPointer($0 + offset).assumingMemoryBound(to: CChar.self)
                }
            }
            return pointers.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { argvlen in
                    courier_redis_append(
                        context, Int32(arguments.count), argv.baseAddress, argvlen.baseAddress)
                }
            }
        }
    }

    private static func copy(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING: return .bulk(bytes(value.str, value.len))
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER: return .integer(value.integer)
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(value.elements)
            for index in 0..<value.elements {
                if let element = value.element?[index] { elements.append(copy(element)) }
            }
            return .array(elements)
        default: return .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ length: Int) -> [UInt8] {
        guard let pointer, length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: length))
    }

    private static func reason(_ context: UnsafeMutablePointer<redisContext>) -> String {
        let text = withUnsafeBytes(of: context.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "error \(context.pointee.err)" : text
    }
}

/// A failure of the connection itself (not an error reply).
package struct RedisConnectionError: Error, Sendable, CustomStringConvertible {
    /// What happened, without any secret.
    package var description: String
    /// Whether the server did not answer within the command or connect
    /// timeout (hiredis reports the socket's EAGAIN, or ETIMEDOUT).
    package var isTimeout = false

    package init(_ description: String) { self.description = description }
}
