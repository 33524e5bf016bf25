import CCurl
@_spi(Transport) public import CourierCore
@_spi(Transport) public import CourierProxies
public import CourierTLS
import Foundation
import HTTPTypes
import Synchronization

/// The default transport on Linux: libcurl's multi interface on a thread the
/// transport owns, with connection reuse across requests.
///
/// ```swift
/// let client = APIClient(transport: CurlTransport.shared, decoder: .codable)
/// // or, scoped, always shut down:
/// try await withCurlTransport { transport in … }
/// ```
///
/// Redirects are not followed by libcurl: the response comes back as it is,
/// so that Courier can apply its own cross-origin rules. TLS is verified.
public final class CurlTransport: Transport {
    /// Limits and timeouts for the transport.
    public struct Configuration: Sendable {
        /// Which HTTP version to speak.
        ///
        /// An open set: more values may join in a minor release, so a `switch`
        /// over it needs a `default` branch.
        public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
            /// The values, for an exhaustive `switch` inside the module.
            enum Kind: String, Sendable, Hashable {
                case automatic, http1, http2PriorKnowledge
            }

            let kind: Kind
            /// The name as written in Swift, such as "automatic".
            public var description: String { kind.rawValue }

            /// HTTP/2 over TLS when the server offers it, else HTTP/1.1 (the default).
            public static let automatic = Self(kind: .automatic)

            /// HTTP/1.1 only.
            public static let http1 = Self(kind: .http1)

            /// HTTP/2 without upgrade ("prior knowledge"), also over plain TCP.
            public static let http2PriorKnowledge = Self(kind: .http2PriorKnowledge)
        }

        /// How the transport's thread waits for its sockets. An open set
        /// (kqueue may join): switch over it with a `default` branch.
        public struct EventLoop: Sendable, Hashable, CustomStringConvertible {
            /// The loop's name: "automatic", "epoll", "poll".
            public let description: String

            private init(_ name: String) { description = name }

            /// epoll on Linux, the poll loop elsewhere (the default).
            public static let automatic = EventLoop("automatic")
            /// epoll, told by libcurl which sockets to watch
            /// (`curl_multi_socket_action`): a turn costs the same however
            /// many connections are open. Linux only; elsewhere the
            /// transport's initialiser throws.
            public static let epoll = EventLoop("epoll")
            /// `curl_multi_perform` and `curl_multi_poll`, on every platform
            /// libcurl runs on: each wake-up rebuilds the descriptor set of
            /// every transfer.
            public static let poll = EventLoop("poll")
        }

        /// Connections to one host at once; more requests wait.
        public var maxConnectionsPerHost: Int
        /// Connections in total.
        public var maxConnections: Int
        /// Transfers handed to libcurl at once; more wait their turn in a
        /// queue in Swift, which stays cheap with thousands of requests in flight.
        public var maxActiveTransfers: Int
        /// The longest a connection may take to establish, in milliseconds,
        /// for requests without their own (`TransportOptions.connectTimeout`).
        public var connectTimeoutMilliseconds: Int
        /// Abort a transfer slower than `bytesPerSecond` for `seconds`; `nil` never.
        /// libcurl averages the speed over the last few seconds; for "no
        /// byte for N seconds" use the request's idle timeout
        /// (`TransportOptions.idleTimeout`), which is exact.
        public var lowSpeedLimit: (bytesPerSecond: Int, seconds: Int)?
        /// Which HTTP version to speak.
        public var httpVersion: HTTPVersion
        /// Where requests go before their origin: ``/CourierProxies/ProxyConfiguration/direct``
        /// by default — libcurl's own reading of `http_proxy` and the like is
        /// turned off; ask for ``/CourierProxies/ProxyConfiguration/environment(_:)``
        /// to follow them. Every kind of proxy, Basic and Digest credentials,
        /// an HTTPS proxy's own trust and a choice per request.
        public var proxy: ProxyConfiguration
        /// The trust store, client certificate and key pins; verification is always on.
        public var tls: TLSSettings
        /// How the transport's thread waits for its sockets.
        public var eventLoop: EventLoop
        /// The most bytes of response buffers (bodies of 16 KiB to 4 MiB)
        /// kept for reuse once their responses are let go: glibc would
        /// otherwise return a large body's pages to the kernel and fault them
        /// in again for the next one. 0 keeps none.
        public var responseBufferPoolBytes: Int
        /// Host names connected to somewhere else: a request to a key's host
        /// opens its connection to the value (an address or another name),
        /// on the request's port, while `Host`, TLS's server name and the
        /// certificate check keep the key — for tests against a local
        /// server, split-horizon setups and pinning a host to one address
        /// (libcurl's `CURLOPT_CONNECT_TO`). Empty by default.
        public var hostOverrides: [String: String]

        /// Creates a configuration; TLS is always verified.
        public init(
            maxConnectionsPerHost: Int = 32, maxConnections: Int = 256, maxActiveTransfers: Int = 256,
            connectTimeoutMilliseconds: Int = 10_000,
            lowSpeedLimit: (bytesPerSecond: Int, seconds: Int)? = nil,
            httpVersion: HTTPVersion = .automatic, proxy: ProxyConfiguration = .direct,
            tls: TLSSettings = .system,
            eventLoop: EventLoop = .automatic, responseBufferPoolBytes: Int = 16 << 20,
            hostOverrides: [String: String] = [:]
        ) {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxConnections = maxConnections
            self.maxActiveTransfers = maxActiveTransfers
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.lowSpeedLimit = lowSpeedLimit
            self.httpVersion = httpVersion
            self.proxy = proxy
            self.tls = tls
            self.eventLoop = eventLoop
            self.responseBufferPoolBytes = responseBufferPoolBytes
            self.hostOverrides = hostOverrides
        }
    }

    private let engine: CurlEngine
    let configuration: Configuration
    /// Whether ``shutdown()`` was called: a transport dropped without it
    /// leaves its thread and connections to the end of the process.
    private let wasShutDown = Atomic(false)
    private let handles: CurlHandlePool
    private let buffers: CurlBufferPool
    /// At most ``Configuration/maxConnectionsPerHost`` HTTP/1 exchanges per
    /// origin in libcurl's hands; the others wait here within their own
    /// deadline. libcurl would queue them itself (`CURLMOPT_MAX_HOST_CONNECTIONS`),
    /// but libcurl 7.88 never times out a transfer waiting there: a call
    /// behind held connections waited as long as they were held.
    private let admission: HostAdmission

    /// Creates a transport with its own thread and connection cache.
    /// - Throws: ``/CourierCore/TransportError`` when libcurl cannot be
    ///   initialised, a host override or a pinning rule is malformed, or
    ///   per-host pinning needs a libcurl over OpenSSL (`.unsupported`).
    public init(configuration: Configuration = .init()) throws(TransportError) {
        // A malformed host override fails here, not at the first request.
        _ = try CurlHandle.connectToEntries(configuration.hostOverrides)
        // So does pinning this libcurl cannot honour, or a malformed pattern.
        try CurlPinning.check(configuration.tls)
        try Self.proxySupport.check(configuration.proxy)
        self.configuration = configuration
        self.engine = try CurlEngine(configuration: configuration)
        self.buffers = CurlBufferPool(capacityBytes: configuration.responseBufferPoolBytes)
        self.handles = CurlHandlePool(
            capacity: max(8, configuration.maxConnections), configuration: configuration,
            socketOpener: engine.socketOpener)
        self.admission = HostAdmission(limit: configuration.maxConnectionsPerHost)
    }

    /// A process-wide transport that lives as long as the process.
    public static let shared: CurlTransport = {
        do {
            return try CurlTransport()
        } catch {
            preconditionFailure("libcurl could not be initialised: \(error)")
        }
    }()

    /// Pauses with `curl_easy_pause`, keeping the connection and every byte.
    @_spi(Transport) public var pausesTransfers: Bool { true }

    /// Sends the request through libcurl, one exchange (a redirect comes
    /// back as it is: the client follows it); see ``/CourierCore/Transport``
    /// for the contract.
    public func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        try options.checkCancellation()
        return try await perform(try await Self.readable(request, options), options: options)
    }

    /// libcurl reads a body on the engine's thread, synchronously: a
    /// one-shot stream is gathered first, at most `options.maxBodySize` bytes
    /// (a client's call arrives with it gathered already, for a redirect's
    /// sake).
    private static func readable(_ request: OutgoingRequest, _ options: TransportOptions) async throws
        -> OutgoingRequest
    {
        guard let body = request.body, !body.isReplayable else { return request }
        var gathered = request
        gathered.body = RequestBody(bytes: try await body.collect(upTo: options.maxBodySize))
        return gathered
    }

    /// Sends the request and returns once its head is in; the body arrives
    /// through the response's stream, the transfer paused whenever the reader
    /// falls a megabyte behind. `options`' `timeout` bounds the whole
    /// exchange (the client passes none and bounds the head itself);
    /// `maxBodySize` does not apply. See ``/CourierCore/StreamingTransport``.
    @_spi(Transport) public func stream(_ request: OutgoingRequest, options: TransportOptions) async throws
        -> StreamingResponse
    {
        try options.checkCancellation()
        let buffer = BodyStreamBuffer()
        let head = try await perform(
            try await Self.readable(request, options), options: options, stream: buffer)
        return StreamingResponse(head: head.head, body: ResponseBodyStream(buffer))
    }

    /// One exchange through libcurl, without following redirects.
    private func perform(
        _ request: OutgoingRequest, options: TransportOptions, stream: BodyStreamBuffer? = nil
    )
        async throws -> RawResponse
    {
        var options = options
        let pinning = try CurlPinning.expectation(for: request.head, configuration.tls)
        let proxy = try Self.proxySupport.proxy(
            for: configuration.proxy, scheme: request.head.scheme ?? "",
            authority: request.head.authority ?? "")
        var slot: HostAdmission.Slot?
        if let origin = admissionOrigin(request.head) {
            let admitted = try await admission.admit(origin, options: options)
            // The wait for a connection counted against the timeout.
            if admitted.waited > .zero { options.timeout = options.timeout.map { $0 - admitted.waited } }
            slot = admitted
        }
        let transfer = CurlTransfer(
            id: engine.nextID(), pool: handles, buffers: buffers, request: request, options: options)
        // Given back when the transfer is freed: libcurl is done with it
        // (a streamed body has ended), or it never started.
        transfer.slot = slot
        transfer.proxy = proxy
        (transfer.pinnedHost, transfer.expectedPins) = pinning
        try transfer.validate()
        transfer.sentFromEngineThread = engine.isCurrentThread
        let engine = self.engine
        let id = transfer.id
        if let stream {
            transfer.stream = stream
            stream.setHandlers(onDrain: { engine.resume(id) }, onCancel: { engine.cancel(id) })
        }
        // The idle timeout (libcurl's low-speed check averages over seconds,
        // so a burst then silence would run seconds past it).
        let watchdog = options.idleTimeout.map { IdleWatchdog(limit: $0, clock: options.clock) }
        transfer.watchdog = watchdog
        let idle = watchdog?.watch { engine.cancel(id, because: $0) }
        defer { idle?.cancel() }
        // The app's pause: recorded here, applied on the engine's thread.
        let pausing = options.transferControl.map { control in
            let request = CurlPauseRequest()
            transfer.pauseRequest = request
            return control.attach { paused in
                if paused { watchdog?.suspend() } else { watchdog?.resume() }
                request.set(paused)
                engine.applyPause(id)
            }
        }
        defer { pausing?.remove() }
        let box = UncheckedTransfer(transfer: transfer)
        defer { transfer.received() }
        return try await options.withCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<RawResponse, any Error>) in
                box.transfer.continuation = continuation
                if !engine.add(box.transfer) {
                    box.transfer.continuation = nil
                    continuation.resume(throwing: TransportError(.cancelled, "the transport is shut down"))
                }
            }
        } onCancel: {
            engine.cancel(id)
        }
    }

    /// The origin whose places an exchange takes, or `nil` when it may be
    /// multiplexed over HTTP/2 (`https` unless ``Configuration/httpVersion``
    /// is ``Configuration/HTTPVersion/http1``; prior knowledge) and is not held back.
    private func admissionOrigin(_ head: HTTPRequest) -> String? {
        switch (head.scheme, configuration.httpVersion.kind) {
        case (_, .http2PriorKnowledge): nil
        case ("https", .automatic): nil
        default: "\(head.scheme ?? "")://\(head.authority ?? "")"
        }
    }

    /// Fails what is in flight and stops the transport's thread. Call it
    /// before letting go of a transport you made (not ``shared``): otherwise
    /// its thread and connections stay until the process exits, and the
    /// transport says so on standard error when it is released.
    public func shutdown() async {
        wasShutDown.store(true, ordering: .releasing)
        await engine.shutdown()
    }

    deinit {
        guard !wasShutDown.load(ordering: .acquiring) else { return }
        // As async-http-client asserts for an HTTPClient, but without ending
        // the process: a leak, said once, where it happens.
        let warning =
            "CurlTransport released without shutdown(): its thread and connections stay until the process "
            + "exits; call `await transport.shutdown()` (or use withCurlTransport) when done with it\n"
        FileHandle.standardError.write(Data(warning.utf8))
    }

    /// Requests in libcurl's hands now, and requests waiting for a place
    /// (``Configuration/maxActiveTransfers``), as of the transport thread's
    /// latest turn: for metrics and load shedding.
    public var load: (active: Int, waiting: Int) {
        (engine.counts.load(ordering: .relaxed), engine.waitingCount.load(ordering: .relaxed))
    }

    /// The event loop the transport's thread runs: ``Configuration/EventLoop/automatic`` resolved
    /// to ``Configuration/EventLoop/epoll`` or ``Configuration/EventLoop/poll``.
    public var eventLoop: Configuration.EventLoop { engine.eventLoop }

    /// The transport's thread as a task executor, for the opt-in mode in which
    /// callers run on it: `withTaskExecutorPreference(transport.taskExecutor)`
    /// or ``withExecutorPreference(_:)``. A request made there never changes
    /// threads, which saves two thread hops per request; in exchange, code that
    /// runs there delays every transfer of this transport while it runs, so
    /// keep it short and never block in it.
    public var taskExecutor: any TaskExecutor { engine }

    /// Runs `body` on the transport's thread (see ``taskExecutor``).
    ///
    /// `body` is `@Sendable` so that it is not isolated to the caller's actor:
    /// from `@MainActor` code it runs off the main actor, on the transport's
    /// thread, which is the point; its result comes back to the caller.
    ///
    /// ```swift
    /// @MainActor func refresh() async throws {
    ///     let user = try await CurlTransport.shared.withExecutorPreference {
    ///         try await client.send(.user(id: 7))
    ///     }
    ///     label.text = user.name   // back on the main actor
    /// }
    /// ```
    public func withExecutorPreference<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows
        -> T
    {
        try await withTaskExecutorPreference(engine) { try await body() }
    }
}

/// Runs `body` with a new transport and shuts it down afterwards, whether
/// `body` returns or throws.
public func withCurlTransport<T: Sendable>(
    configuration: CurlTransport.Configuration = .init(), _ body: (CurlTransport) async throws -> T
) async throws -> T {
    try await withShutdown(
        try CurlTransport(configuration: configuration), shutdown: { await $0.shutdown() }, body)
}

/// Carries a transfer into the continuation closure.
private struct UncheckedTransfer: @unchecked Sendable {
    // Safe: the closure runs synchronously inside `send` before the transfer
    // is handed to the engine; nothing else touches it until the handoff.
    let transfer: CurlTransfer
}

/// Streams response bodies (the `Transport` SPI: `APIClient` calls it for
/// `stream`, `events` and downloads).
@_spi(Transport) extension CurlTransport: StreamingTransport, PausableTransport, InterimResponseTransport {
    /// libcurl's header callback sees every interim head.
    public var reportsInterimResponses: Bool { true }
}
