/// One reply from Redis, copied out of hiredis' reply object.
package enum RedisReply: Sendable, Equatable {
    /// A simple status such as `OK`.
    case status(String)
    /// An error reply such as `NOSCRIPT …` or `WRONGPASS …`.
    case error(String)
    /// An integer.
    case integer(Int64)
    /// A bulk string: bytes, exactly as stored.
    case bulk([UInt8])
    /// The null reply (a missing key).
    case null
    /// An array of replies.
    case array([RedisReply])

    /// The bytes of a bulk or status reply.
    package var bytes: [UInt8]? {
        switch self {
        case .bulk(let bytes): bytes
        case .status(let text): Array(text.utf8)
        default: nil
        }
    }

    /// The integer of an integer reply, or of a bulk reply that spells one.
    package var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .bulk(let bytes): Int64(String(decoding: bytes, as: UTF8.self))
        default: nil
        }
    }
}
