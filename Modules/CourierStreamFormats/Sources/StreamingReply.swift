import CourierCore
public import HTTPTypes

/// The deadlines of a streamed body. The head has the call's own timeout
/// (``/CourierCore/EndpointSpec/timeout`` or the client's), retried like any attempt;
/// these start once the head is in and end the stream with
/// ``/CourierCore/CourierError/Code/timedOut``.
public struct StreamTimeouts: Sendable, Hashable {
    /// The longest the reader may wait for the next chunk: a server that
    /// goes quiet this long is taken for gone. Time the reader spends on
    /// its own work does not count. `nil`: no limit.
    public var idle: Duration?
    /// The longest the whole body may take; `nil`: no limit.
    public var total: Duration?

    /// Deadlines for a stream; both off by default (a live feed may be quiet
    /// and last for hours).
    public init(idle: Duration? = nil, total: Duration? = nil) {
        self.idle = idle
        self.total = total
    }
}

/// A streaming call's answer: the head, validated like any response's, and
/// the body still to read.
public struct StreamingReply: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse
    /// The body, read once, as it arrives.
    public var body: StreamedBody
    /// How many requests the call sent before this head (retries included).
    public var attempts: Int

    /// The status code.
    public var statusCode: Int { head.status.code }
    /// The header fields.
    public var headers: HTTPFields { head.headerFields }
}
