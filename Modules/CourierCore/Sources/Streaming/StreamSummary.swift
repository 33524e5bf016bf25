/// What a streamed call carried, counted as the reader took it: plugins'
/// `process` sees it once, when the stream ends (``RawResponse/stream``).
public struct StreamSummary: Sendable, Hashable {
    /// Body bytes the reader took.
    public var bytes: Int64 = 0
    /// Chunks they came in.
    public var chunks: Int = 0
    /// Server-sent events delivered, for an event stream
    /// (CourierStreamFormats' `APIClient.events(_:timeouts:plugins:)`); `nil` for a byte stream.
    public var events: Int?
    /// Connections the stream was read over: more than one after reconnects.
    public var connections: Int = 1

    /// A summary with these counts.
    public init(bytes: Int64 = 0, chunks: Int = 0, events: Int? = nil, connections: Int = 1) {
        self.bytes = bytes
        self.chunks = chunks
        self.events = events
        self.connections = connections
    }
}
