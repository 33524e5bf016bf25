/// One message over a WebSocket (RFC 6455 §5.6): text, always UTF-8, or
/// bytes. Fragmented messages arrive whole; control frames (ping, pong,
/// close) are the connection's business, never a message.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary([UInt8])

    /// The payload's size in bytes (a text message's UTF-8).
    public var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let bytes): bytes.count
        }
    }
}
