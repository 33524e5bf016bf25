public import HTTPTypes

/// A response as the transport delivered it: status, headers, body, metrics.
///
/// Validation, envelope checks and decoding work on this value; the
/// ``APIClient/response(_:plugins:progress:)`` form returns it beside the model.
///
/// A response the pipeline has validated carries a stamp saying which call
/// validated it, with the envelope head it read; changing ``head`` or
/// ``body`` removes the stamp, so a response an interceptor alters is
/// validated again.
public struct RawResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse {
        didSet { validation = nil }
    }
    /// The body, in memory or in a downloaded file.
    public var body: ResponseBody {
        didSet { validation = nil }
    }
    /// Timings, byte counts and connection reuse, as far as the transport knows.
    public var metrics: TransportMetrics
    /// When the pipeline followed redirects, the last hop's request: the
    /// one this response answers, at another URL (and perhaps with another
    /// method) than the request as sent; `nil` when it answers the request
    /// as sent. An interceptor that answers a challenge reads the origin
    /// that challenged here, and answers only that origin.
    public internal(set) var redirectedTo: HTTPRequest?
    /// Which call validated this response, and what it read from its envelope.
    var validation: ValidationStamp?
    /// Where the response came from when a response cache took part in the
    /// call (`CourierCache` reads it as `cacheSource`); `nil` otherwise.
    package var cacheOrigin: CacheOrigin?
    /// For a streaming call: the body still on the wire, which the pass
    /// hands to its caller (CourierStreamFormats' `APIClient.stream(_:timeouts:plugins:)`); the
    /// response's `body` beside it is empty.
    var openBody: ResponseBodyStream?
    /// For a streamed call, what its stream carried (bytes, chunks, events,
    /// connections), as plugins' `process` sees it when the stream ends;
    /// `nil` for any other response.
    public var stream: StreamSummary?

    /// Creates a response, as a transport or a test double returns it.
    /// - Parameters:
    ///   - head: The status and header fields, as received.
    ///   - body: The body in memory, or the file a download went to.
    ///   - metrics: What the transport measured (timings, bytes, the
    ///     connection's reuse); empty for a made-up response.
    public init(head: HTTPResponse, body: ResponseBody = .empty, metrics: TransportMetrics = .init()) {
        self.head = head
        self.body = body
        self.metrics = metrics
    }

    /// The status code.
    public var statusCode: Int { head.status.code }
    /// The header fields: `head.headerFields`, under the name HTTPTypes gives them.
    public var headerFields: HTTPFields { head.headerFields }
}

/// What a transport measured about one exchange. Unknown values stay `nil`.
public struct TransportMetrics: Sendable, Hashable {
    /// From the start of the exchange to its end.
    public var total: Duration?
    /// Name resolution.
    public var dnsLookup: Duration?
    /// TCP connect.
    public var connect: Duration?
    /// TLS handshake.
    public var tlsHandshake: Duration?
    /// From the start until the first response byte.
    public var timeToFirstByte: Duration?
    /// Bytes of request body sent.
    public var bytesSent: Int64
    /// Bytes of response body received.
    public var bytesReceived: Int64
    /// Whether an existing connection carried the request.
    public var connectionReused: Bool?
    /// The HTTP version used, such as "1.1" or "2".
    public var httpVersion: String?
    /// How many times the transport sent the request again by itself — libcurl
    /// does after a kept-alive connection turns out dead, for idempotent
    /// methods — so the server saw `1 + resends` requests for this attempt;
    /// `nil` when the transport cannot tell.
    public var resends: Int?

    /// Creates metrics.
    public init(
        total: Duration? = nil,
        dnsLookup: Duration? = nil,
        connect: Duration? = nil,
        tlsHandshake: Duration? = nil,
        timeToFirstByte: Duration? = nil,
        bytesSent: Int64 = 0,
        bytesReceived: Int64 = 0,
        connectionReused: Bool? = nil,
        httpVersion: String? = nil,
        resends: Int? = nil
    ) {
        self.total = total
        self.dnsLookup = dnsLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.timeToFirstByte = timeToFirstByte
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.connectionReused = connectionReused
        self.httpVersion = httpVersion
        self.resends = resends
    }
}
