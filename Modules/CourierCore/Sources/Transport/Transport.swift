public import HTTPTypes

/// Sends one HTTP request and returns its response: the seam where libcurl,
/// URLSession or a test double plug into Courier.
///
/// The pipeline calls a transport once per hop of an attempt, after every
/// interceptor and plugin ran: a transport sends exactly the request it is
/// given and returns its response, a 3xx included, as it is. Following
/// redirects (``RedirectPolicy``) and the cookie jar (``CookieStorage``) are
/// the pipeline's, the same for every transport. A transport must:
/// - send ``OutgoingRequest/head`` and stream ``OutgoingRequest/body`` (reading
///   it at most once per call);
/// - honour ``TransportOptions/timeout`` and ``TransportOptions/idleTimeout``
///   and throw a ``TransportError`` with code ``TransportError/Code/timedOut``
///   when one fires;
/// - stop promptly when the calling Swift `Task` is cancelled, or the call is
///   cancelled from outside (``TransportOptions/cancellation``, for
///   ``APIClient/cancelAll()``), and throw `CancellationError` or a
///   ``TransportError`` with code ``TransportError/Code/cancelled``;
///   ``TransportOptions/checkCancellation()`` before an exchange starts and
///   ``TransportOptions/withCancellationHandler(_:onCancel:)`` while it runs
///   cover both;
/// - not follow redirects, nor add or store cookies (the HTTP library's own
///   redirect and cookie handling switched off);
/// - write the body to ``TransportOptions/destination`` when one is given and
///   return ``ResponseBody/file(_:)``;
/// - report progress through ``TransportOptions/progress``;
/// - where it can hold a transfer without losing bytes, conform to
///   ``PausableTransport`` and attach each exchange to
///   ``TransportOptions/transferControl``, its idle timeout standing still
///   while paused;
/// - never block the Swift concurrency pool: blocking work runs on threads the
///   transport owns.
///
/// ### Use an existing one
/// `CurlTransport` (Linux default) and `URLSessionTransport` ship in their own
/// modules; `StubTransport` and `RecordingTransport` in `CourierTesting`.
///
/// ### Implement your own
/// ```swift
/// struct EchoTransport: Transport {
///     func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
///         let body = try await request.body?.collect() ?? []
///         return RawResponse(head: HTTPResponse(status: .ok), body: .bytes(body))
///     }
/// }
/// ```
public protocol Transport: Sendable {
    /// Sends the request and returns the response; see the type's contract.
    /// - Throws: ``TransportError`` (or `CancellationError`) on failure.
    func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse
}

/// A request ready to send: the head and a body that knows whether it can be
/// sent again.
public struct OutgoingRequest: Sendable {
    /// Method, scheme, authority, path and header fields.
    public var head: HTTPRequest
    /// The body, if any.
    public var body: RequestBody?
    /// Whose credential the request carries, as the `Authenticator` that
    /// signed it vouched (its provider's `CredentialProvider.principal(of:)`);
    /// keys use it only while the credential fields are the ones it signed.
    package var signedPrincipal: SignedPrincipal?

    /// Creates a request, as the pipeline hands it to interceptors and the transport.
    /// - Parameters:
    ///   - head: Method, URL parts and header fields.
    ///   - body: The body, or `nil` for none; one made from a stream can be
    ///     sent only once, which the retry policy knows.
    public init(head: HTTPRequest, body: RequestBody? = nil) {
        self.head = head
        self.body = body
    }
}

/// Per-request instructions for a transport.
public struct TransportOptions: Sendable {
    /// The longest the whole exchange may take; `nil` leaves it to the
    /// transport. (For a stream the pipeline bounds the wait for the head
    /// itself and passes `nil`: the body has its own deadlines.)
    @_spi(Transport) public var timeout: Duration?
    /// The longest the exchange may move no byte in either direction (the
    /// request not yet sent whole, the server thinking, the body paused):
    /// ``TransportError/Code/timedOut`` when it passes. Unlike ``timeout``
    /// it lets a long download run as long as bytes keep coming. `nil`: none.
    /// CurlTransport counts it in whole seconds (libcurl's low-speed check).
    @_spi(Transport) public var idleTimeout: Duration?
    /// The longest establishing a connection may take (name lookup, TCP,
    /// TLS), where the transport can bound it per request; `nil` leaves it
    /// to the transport's configuration. See each transport for what it honours.
    @_spi(Transport) public var connectTimeout: Duration?
    /// Write the body to this file instead of memory.
    @_spi(Transport) public var destination: DownloadTarget?
    /// The largest in-memory body (after decompression) the transport should
    /// accept; larger fails with ``TransportError/Code/bodyTooLarge``. Bodies
    /// written to ``destination`` are bounded by ``maxDownloadSize`` instead.
    @_spi(Transport) public var maxBodySize: Int
    /// The largest body written to ``destination``; `nil` for no limit.
    /// Larger fails with ``TransportError/Code/bodyTooLarge``.
    @_spi(Transport) public var maxDownloadSize: Int64?
    /// The most decoded bytes a content-coded body written to
    /// ``destination`` may grow to per coded byte, past its first MiB
    /// (``DownloadExpansionLimit``); `nil` for no bound. A client's calls
    /// have 200 unless told otherwise (CourierTransfers'
    /// `maxDownloadExpansion`); options made by hand have none. Courier's
    /// own transports honour it; another transport may leave it to
    /// ``maxDownloadSize``.
    package var maxDownloadExpansion: Int?
    /// Called with upload and download progress, from any thread.
    @_spi(Transport) public var progress: (@Sendable (TransferProgress) -> Void)?
    /// The call's cancellation from outside its task; stop the exchange when
    /// it fires (see ``CallCancellation``). `nil` outside a client's call.
    @_spi(Transport) public var cancellation: CallCancellation?
    /// Pauses and resumes the call's transfer from outside, for a transport
    /// whose ``PausableTransport/pausesTransfers`` says it can: attach each exchange
    /// (``TransferControl/attach(_:)``). `nil` when nobody can pause the call.
    @_spi(Transport) public var transferControl: TransferControl?
    /// Called with each interim (1xx) response before the final one, `101`
    /// aside — a resumable upload learns its upload's address from a `104` —
    /// by a transport whose ``InterimResponseTransport/reportsInterimResponses``
    /// says it can; from any thread. `nil`: nobody asks.
    @_spi(Transport) public var interimResponse: (@Sendable (HTTPResponse) -> Void)?
    /// The client's clock, for the transport's idle timeout
    /// (its idle watch): what a test's `TestClock` drives.
    @_spi(Transport) public var clock: any CourierClock = SystemClock()

    /// The default in-memory body limit: 64 MiB.
    public static let defaultMaxBodySize = 64 * 1024 * 1024

    /// Creates options.
    @_spi(Transport) public init(
        timeout: Duration? = nil,
        destination: DownloadTarget? = nil,
        maxBodySize: Int = TransportOptions.defaultMaxBodySize, maxDownloadSize: Int64? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil, cancellation: CallCancellation? = nil,
        idleTimeout: Duration? = nil, connectTimeout: Duration? = nil
    ) {
        self.timeout = timeout
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout
        self.destination = destination
        self.maxBodySize = maxBodySize
        self.maxDownloadSize = maxDownloadSize
        self.progress = progress
        self.cancellation = cancellation
    }
}

/// How far an upload or a download has got.
public struct TransferProgress: Sendable, Hashable {
    /// Which way the bytes flow.
    public enum Direction: Sendable, Hashable {
        /// Request body bytes sent.
        case upload
        /// Response body bytes received.
        case download
    }

    /// Which way the bytes flow.
    public var direction: Direction
    /// Bytes transferred so far.
    public var completed: Int64
    /// The total, when known.
    public var total: Int64?

    /// Creates a progress report.
    public init(direction: Direction, completed: Int64, total: Int64?) {
        self.direction = direction
        self.completed = completed
        self.total = total
    }

    /// The completed fraction in 0...1, when the total is known and non-zero.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(completed) / Double(total))
    }

    /// The total a download reports for a response with these header
    /// fields: its `Content-Length` when the body arrives as it was sent;
    /// `nil` when it has none, or when it is content-encoded (gzip, br, …):
    /// the length counts encoded bytes, progress counts the decoded bytes a
    /// transport hands over, and a fraction of the two would be wrong.
    @_spi(Transport) public static func downloadTotal(of fields: HTTPFields) -> Int64? {
        let encodings = fields[values: .contentEncoding].flatMap { $0.split(separator: ",") }
        guard encodings.allSatisfy({ String($0).trimmingSpaces.lowercased() == "identity" }),
            let length = try? ResponseHeadCheck.contentLength(fields[values: .contentLength])
        else { return nil }
        return Int64(length)
    }
}
