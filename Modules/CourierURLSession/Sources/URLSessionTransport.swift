@_spi(Transport) public import CourierCore
public import CourierProxies
public import CourierTLS
import HTTPTypes
import Synchronization

// `URLSessionConfiguration`, in the public initialisers, is
// FoundationNetworking's on Linux and Foundation's on Apple platforms.
#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// A ``/CourierCore/Transport`` over URLSession (FoundationNetworking on Linux).
///
/// URLSession follows no redirect and keeps no cookie: a 3xx comes back as
/// it is and the client's ``/CourierCore/RedirectPolicy`` and cookie jar
/// act on it, as for every other transport. The per-request
/// timeout is a total deadline, enforced by the transport (URLSession's own
/// timeout only measures idle time). Gaps on Linux are listed in the
/// module's README.
///
/// At most ``maxConnectionsPerHost`` exchanges per origin are handed to the
/// session at once; the others wait in the transport, first come first
/// served, within their own deadline (a call whose deadline passes there
/// fails with ``/CourierCore/TransportError/Code/connectionUnavailable``,
/// nothing sent). URLSession's own queue would start the task's timer while
/// it waits: six slow calls to one host used to time out every other call
/// to it before a byte was sent.
public final class URLSessionTransport: Transport {
    let session: URLSession
    let delegate: SessionDelegate
    private let admission: HostAdmission

    /// Creates a transport with its own session.
    /// - Parameters:
    ///   - configuration: The session's configuration (ephemeral by default);
    ///     Courier turns off its cookie handling, cache and credential
    ///     storage, and sets its `httpMaximumConnectionsPerHost` to
    ///     `maxConnectionsPerHost`.
    ///   - maxConnectionsPerHost: Exchanges (so connections) per origin at
    ///     once; more calls wait their turn. 32, as `CurlTransport`'s default:
    ///     URLSession's 6 is a browser's number, easily filled by a few
    ///     streams or slow calls on a server.
    public init(
        configuration: URLSessionConfiguration = .ephemeral, maxConnectionsPerHost: Int = 32
    ) {
        let delegate = SessionDelegate()
        let admission = HostAdmission(limit: maxConnectionsPerHost)
        configuration.httpMaximumConnectionsPerHost = admission.limit
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        // Credentials come from Courier's interceptors and plugins only.
        configuration.urlCredentialStorage = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        self.delegate = delegate
        self.admission = admission
    }

    /// The most exchanges handed to the session per origin at once.
    public var maxConnectionsPerHost: Int { admission.limit }

    /// Exchanges in the session now (streams until their body ends) and
    /// calls waiting for a connection to their host: for metrics and load
    /// shedding.
    public var load: (active: Int, waiting: Int) { admission.load }

    /// Creates a transport with custom TLS trust or a client certificate.
    ///
    /// - Throws: ``/CourierCore/TransportError/Code/unsupported`` for anything but
    ///   ``/CourierTLS/TLSSettings/system``. On Linux, FoundationNetworking does not hand
    ///   server-trust or client-certificate challenges to the delegate, so a
    ///   private CA, pins or mutual TLS cannot be honoured; on Apple platforms
    ///   Courier does not implement them yet. Use `CurlTransport`, which can.
    public convenience init(
        configuration: URLSessionConfiguration = .ephemeral, maxConnectionsPerHost: Int = 32, tls: TLSSettings
    ) throws(TransportError) {
        try self.init(
            configuration: configuration, maxConnectionsPerHost: maxConnectionsPerHost, tls: tls,
            proxy: .direct)
    }

    /// Creates a transport whose route is checked: with ``/CourierProxies/ProxyConfiguration/direct``
    /// only, the one route this transport can promise.
    ///
    /// - Throws: ``/CourierCore/TransportError/Code/unsupported`` for any
    ///   proxy: URLSession takes none that Courier configures (Apple's
    ///   follows the system's settings, FoundationNetworking's none); use
    ///   `CurlTransport` or `AsyncHTTPClientTransport`. On Linux also for
    ///   ``/CourierProxies/ProxyConfiguration/direct`` when the environment
    ///   names a proxy (`http_proxy`, `HTTPS_PROXY`, `ALL_PROXY`): the
    ///   libcurl under FoundationNetworking reads them and cannot be told
    ///   not to, so "direct" could not be kept. And as the `tls:` initialiser.
    public convenience init(
        configuration: URLSessionConfiguration = .ephemeral, maxConnectionsPerHost: Int = 32,
        tls: TLSSettings = .system, proxy: ProxyConfiguration
    ) throws(TransportError) {
        guard tls == .system else {
            throw TransportError(
                .unsupported,
                "URLSessionTransport cannot apply a CA bundle, a client certificate or pinned keys; use CurlTransport"
            )
        }
        guard proxy.isDirect else {
            throw TransportError(
                .unsupported,
                "URLSessionTransport cannot go through a proxy (\(proxy)); use CurlTransport or AsyncHTTPClientTransport"
            )
        }
        #if canImport(FoundationNetworking)
            // libcurl under FoundationNetworking follows the environment's proxies silently.
            let environment = (try? ProxyConfiguration.environment()) ?? .direct
            guard environment.isDirect else {
                throw TransportError(
                    .unsupported,
                    "URLSessionTransport on Linux would go through the environment's proxy (\(environment)): "
                        + "FoundationNetworking's libcurl reads http_proxy, HTTPS_PROXY and ALL_PROXY and cannot be "
                        + "told not to; unset them, or use CurlTransport or AsyncHTTPClientTransport")
            }
        #endif
        self.init(configuration: configuration, maxConnectionsPerHost: maxConnectionsPerHost)
    }

    /// A process-wide transport.
    public static let shared = URLSessionTransport()

    /// Sends the request, one exchange (a redirect comes back as it is: the
    /// client follows it); see ``/CourierCore/Transport`` for the contract.
    public func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        try options.checkCancellation()
        return try await perform(request, options: options)
    }

    /// Sends the request and returns once its head is in; the body arrives
    /// through the response's stream. `options`' `timeout` bounds the whole
    /// exchange (the client passes none and bounds the head itself). On Linux, FoundationNetworking cannot pause a transfer: bytes a
    /// slow reader has not taken wait in memory up to `maxBodySize`, past
    /// which the stream fails with ``/CourierCore/TransportError/Code/bodyTooLarge`` (see
    /// the module's README); Apple's URLSession suspends the task instead.
    @_spi(Transport) public func stream(_ request: OutgoingRequest, options: TransportOptions) async throws
        -> StreamingResponse
    {
        try options.checkCancellation()
        return try await open(request, options: options)
    }

    /// A stream: a data task whose head resumes the caller and
    /// whose bytes go to a ``StreamTap``.
    private func open(_ request: OutgoingRequest, options: TransportOptions) async throws -> StreamingResponse
    {
        var streaming = options
        streaming.maxBodySize = .max
        var urlRequest = try Self.urlRequest(request, options: streaming)
        // URLSession's own timeout is an idle one: a quiet feed is the
        // caller's to judge (StreamTimeouts), not a reason to drop it.
        urlRequest.timeoutInterval = 7 * 86_400
        if request.body != nil {
            throw TransportError(
                .unsupported, "URLSessionTransport streams responses to requests without a body")
        }
        // The place is held until the task ends: the body's end, its
        // failure, or the reader's cancellation.
        let slot = try await admission.admit(Self.origin(request.head), options: options)
        let task = session.dataTask(with: urlRequest)
        let delegate = self.delegate
        let tap = StreamTap(task: task, overflowLimit: options.maxBodySize)
        let taskState = TaskState(
            options: streaming, uploadTotal: nil, download: nil, tap: tap, whenTaskEnds: slot.release)
        tap.onCancel { Self.cancel(task, taskState, delegate) }
        let head = try await run(task, taskState, options: options)
        return StreamingResponse(head: head.head, body: ResponseBodyStream(tap.buffer))
    }

    /// Cancels everything and invalidates the session (after the task
    /// cancellations already asked for, without waiting for them).
    public func shutdown() { delegate.invalidateInBackground(session) }

    /// Apple's URLSession holds a suspended task; FoundationNetworking's
    /// (Linux) restarts it from its first byte, so there a transfer cannot pause.
    @_spi(Transport) public var pausesTransfers: Bool {
        #if canImport(FoundationNetworking)
            false
        #else
            true
        #endif
    }

    private func perform(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        let urlRequest = try Self.urlRequest(request, options: options)
        var spooled: URL?
        defer { if let spooled { try? FileManager.default.removeItem(at: spooled) } }
        // A place among the host's connections first: the session is never
        // given a task it would have to queue (see the type's documentation).
        let slot = try await admission.admit(Self.origin(request.head), options: options)
        let task: URLSessionTask
        let download: PartialDownload?
        do {
            var source: BodySpool.Source?
            if let body = request.body { source = try await BodySpool.prepare(body) }
            if case .file(let url, true) = source { spooled = url }
            // Downloads use data tasks too: the body is streamed into Courier's own
            // temporary file beside the destination (PartialDownload), never into
            // FoundationNetworking's download file in $TMPDIR, which it leaves
            // behind when a transfer fails.
            switch source {
            case nil: task = session.dataTask(with: urlRequest)
            case .data(let data): task = session.uploadTask(with: urlRequest, from: data)
            case .file(let url, _): task = session.uploadTask(with: urlRequest, fromFile: url)
            }
            download = try options.destination.map { (destination) throws(TransportError) in
                try PartialDownload(destination)
            }
        } catch {
            // No task will end to give the place back.
            slot.release()
            throw error
        }
        // The wait for a connection counted against the timeout; the end is
        // fixed now, and checked again when the response is complete.
        let deadline = options.timeout.map { TotalDeadline($0, waited: slot.waited) }
        let state = TaskState(
            options: options, uploadTotal: request.body?.length, download: download, deadline: deadline,
            whenTaskEnds: slot.release)
        let delegate = self.delegate
        let stop: @Sendable (TransportError) -> Void = { error in
            state.abort(error)
            delegate.cancelInBackground(task)
        }
        let timer = deadline?.watch(onExpiry: stop)
        defer { timer?.cancel() }
        // The idle timeout: FoundationNetworking's counts only bytes received.
        let idle = state.watchdog?.watch(onExpiry: stop)
        defer { idle?.cancel() }
        #if !canImport(FoundationNetworking)
            // The app's pause: Apple's URLSession holds a suspended task's
            // connection and bytes.
            let watchdog = state.watchdog
            let pausing = options.transferControl?.attach { paused in
                if paused {
                    watchdog?.suspend()
                    task.suspend()
                } else {
                    watchdog?.resume()
                    task.resume()
                }
            }
            defer { pausing?.remove() }
        #endif
        return try await run(task, state, options: options)
    }

    /// Starts `task` and waits for what its state resumes the caller with (the
    /// whole response, or a stream's head); cancelling the call fails the
    /// caller at once and cancels the task off the caller's thread.
    private func run(_ task: URLSessionTask, _ state: TaskState, options: TransportOptions) async throws
        -> RawResponse
    {
        let delegate = self.delegate
        return try await options.withCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<RawResponse, any Error>) in
                state.start(continuation)
                delegate.register(state, for: task.taskIdentifier)
                task.resume()
            }
        } onCancel: {
            Self.cancel(task, state, delegate)
        }
    }

    private static func cancel(_ task: URLSessionTask, _ state: TaskState, _ delegate: SessionDelegate) {
        state.abort(TransportError(.cancelled, "the request was cancelled"))
        delegate.cancelInBackground(task)
    }

    /// `scheme://authority`: what one pool of connections serves.
    private static func origin(_ head: HTTPRequest) -> String {
        "\(head.scheme ?? "")://\(head.authority ?? "")"
    }

    static func urlRequest(_ request: OutgoingRequest, options: TransportOptions)
        throws(TransportError)
        -> URLRequest
    {
        let head = request.head
        guard let scheme = head.scheme, let authority = head.authority, let path = head.path,
            let url = URL(string: "\(scheme)://\(authority)\(path)")
        else { throw TransportError(.other, "the request has no valid URL") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = head.method.rawValue
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        if let timeout = options.timeout {
            urlRequest.timeoutInterval = max(0.001, timeout.seconds)
        } else if options.idleTimeout != nil {
            // Courier's watch (`watch`) counts bytes both ways; FoundationNetworking's
            // own timer, reset only by bytes received, must not fire first.
            urlRequest.timeoutInterval = 7 * 86_400
        }
        // One `Cookie` field, its crumbs joined with "; " (HTTPFields.forEachOnTheWire):
        // added one by one, FoundationNetworking would join them with commas.
        try head.headerFields.forEachOnTheWire { name, value throws(TransportError) in
            if value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
                throw TransportError(.other, "header \(name) contains CR, LF or NUL")
            }
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        return urlRequest
    }
}

/// Streams response bodies (the `Transport` SPI: `APIClient` calls it for
/// `stream`, `events` and downloads).
@_spi(Transport) extension URLSessionTransport: StreamingTransport, PausableTransport {}
