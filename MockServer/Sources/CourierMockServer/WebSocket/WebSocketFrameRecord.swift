/// One WebSocket frame as the journal shows it: which way it went, its
/// kind, its size and — for text and close frames — what it said.
public struct WebSocketFrameRecord: Sendable, Hashable, Encodable {
    /// `in` (from the client) or `out` (from the server).
    public var direction: String
    /// `text`, `binary`, `continuation`, `ping`, `pong`, `close`, or the
    /// fault that wrote it (`dropMidFrame`).
    public var opcode: String
    /// Whether the frame ends its message.
    public var fin: Bool
    /// The payload's length in bytes.
    public var length: Int
    /// A text frame's first 256 bytes, when they are UTF-8; a close
    /// frame's reason.
    public var text: String?
    /// A close frame's status code.
    public var closeCode: Int?
    /// Nanoseconds since the server started.
    public var at: UInt64

    /// The most frames one journal entry keeps; later ones are counted in
    /// ``JournalEntry/webSocketFramesDropped``.
    static let kept = 10_000
}
