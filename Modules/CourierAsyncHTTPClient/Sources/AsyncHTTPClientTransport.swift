#if AsyncHTTPClient
    import AsyncHTTPClient
    @_spi(Locking) @_spi(Transport) public import CourierCore
    @_spi(Transport) public import CourierProxies
    public import CourierTLS
    import HTTPTypes
    import NIOCore
    import NIOPosix
    import NIOSSL

    /// A ``/CourierCore/Transport`` over async-http-client (SwiftNIO): for a
    /// server that already runs on SwiftNIO and wants one event loop group,
    /// one connection pool and NIOSSL for everything.
    ///
    /// async-http-client follows no redirect: a 3xx comes back as it is and
    /// the client's ``/CourierCore/RedirectPolicy`` and cookie jar act on it,
    /// as for every other transport; the per-request timeout is a
    /// total deadline, body included. Gaps: pinned public keys (NIOSSL has no
    /// pinning that async-http-client exposes) fail with
    /// ``/CourierCore/TransportError/Code/unsupported``; the rest is listed in
    /// the module's README.
    ///
    /// Needs the package's `AsyncHTTPClient` trait:
    ///
    /// ```swift
    /// .package(url: "https://github.com/courier-swift/courier.git", from: "0.1.0", traits: ["AsyncHTTPClient"])
    /// ```
    /// ```swift
    /// let transport = try AsyncHTTPClientTransport(configuration: .init(tls: TLSSettings(caBundlePath: ca)))
    /// let client = APIClient(transport: transport, decoder: .codable)
    /// // …
    /// await transport.shutdown()
    /// ```
    public final class AsyncHTTPClientTransport: Transport {
        /// How the transport connects.
        public struct Configuration: Sendable {
            /// Trust and identity: a private CA, a client certificate.
            public var tls: TLSSettings
            /// The longest a connection may take to open: 10 s.
            public var connectTimeout: Duration
            /// How many HTTP/1.1 connections per host the pool keeps open at once: 8.
            /// More calls to one host wait for a connection within their own
            /// deadline (never failing at the connect timeout, as
            /// async-http-client's own queue would).
            public var maxConnectionsPerHost: Int
            /// How long an idle connection stays in the pool: 60 s.
            public var idleTimeout: Duration
            /// Whether HTTP/2 may be negotiated (ALPN, over TLS): `true`.
            public var allowsHTTP2: Bool
            /// Host names connected to somewhere else: a request to a key's
            /// host opens its connection to the value (an address or another
            /// name), on the request's port, while `Host`, TLS's server name
            /// and the certificate check keep the key (async-http-client's
            /// `dnsOverride`). Empty by default.
            public var hostOverrides: [String: String]
            /// Where requests go before their origin: ``/CourierProxies/ProxyConfiguration/direct``
            /// by default. HTTP proxies (plain requests and `CONNECT`
            /// tunnels) with Basic credentials, and SOCKS5 proxies without
            /// credentials; an HTTPS proxy or Digest credentials throw
            /// `.unsupported` when the transport is made.
            public var proxy: ProxyConfiguration

            /// Creates a configuration.
            public init(
                tls: TLSSettings = .system, connectTimeout: Duration = .seconds(10),
                maxConnectionsPerHost: Int = 8, idleTimeout: Duration = .seconds(60),
                allowsHTTP2: Bool = true,
                hostOverrides: [String: String] = [:], proxy: ProxyConfiguration = .direct
            ) {
                self.tls = tls
                self.connectTimeout = connectTimeout
                self.maxConnectionsPerHost = maxConnectionsPerHost
                self.idleTimeout = idleTimeout
                self.allowsHTTP2 = allowsHTTP2
                self.hostOverrides = hostOverrides
                self.proxy = proxy
            }
        }

        /// The direct client, and one per proxy requests go through.
        let clients: AHCClients
        let configuration: Configuration
        /// Connections opened so far: a request that fails while none was
        /// opened went out on a kept-alive one.
        private let connections = ConnectionCount()
        /// At most ``Configuration/maxConnectionsPerHost`` HTTP/1 exchanges per
        /// origin inside async-http-client, the others waiting here within
        /// their deadline: async-http-client's own queue would fail them at
        /// the *connect* timeout (`getConnectionFromPoolTimeout`).
        let admission: HostAdmission
        /// The TLS context of `wss` connections, made on the first one: it
        /// reads the trust roots, which every connection need not do again.
        let webSocketTLS = Locked<NIOSSLContext?>(nil)

        /// Creates a transport with its own `HTTPClient` on the process's
        /// shared event loop group; call ``shutdown()`` when done with it.
        ///
        /// - Throws: ``/CourierCore/TransportError/Code/unsupported`` for pinned
        ///   public keys; ``/CourierCore/TransportError/Code/tls`` when a CA
        ///   bundle, certificate or key cannot be read.
        public init(configuration: Configuration = .init()) throws(TransportError) {
            try Self.proxySupport.check(configuration.proxy)
            var settings = HTTPClient.Configuration(
                tlsConfiguration: try AHCTLS.configuration(configuration.tls),
                redirectConfiguration: .disallow,
                timeout: .init(connect: .nanoseconds(Int64(configuration.connectTimeout.seconds * 1e9))),
                // Bodies are decoded by AHCBodyDecoding, as CurlTransport decodes them.
                decompression: .disabled)
            settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(
                1, configuration.maxConnectionsPerHost)
            settings.connectionPool.idleTimeout = .nanoseconds(Int64(configuration.idleTimeout.seconds * 1e9))
            // A refused or failed connection (TLS included) fails the request at
            // once, as on every transport: retrying is the RetryPolicy's call
            // (counted, logged, on the client's clock), not a hidden backoff
            // until the connect timeout.
            settings.connectionPool.retryConnectionEstablishment = false
            settings.httpVersion = configuration.allowsHTTP2 ? .automatic : .http1Only
            settings.dnsOverride = configuration.hostOverrides
            let connections = connections
            settings.http1_1ConnectionDebugInitializer = { channel in
                connections.track(channel)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            settings.http2ConnectionDebugInitializer = settings.http1_1ConnectionDebugInitializer
            clients = AHCClients(settings: settings)
            admission = HostAdmission(limit: configuration.maxConnectionsPerHost)
            self.configuration = configuration
        }

        /// A process-wide transport with the default configuration, never shut down.
        public static let shared: AsyncHTTPClientTransport = {
            do {
                return try AsyncHTTPClientTransport()
            } catch {
                // The default configuration has no files to read and no pins.
                preconditionFailure("the default AsyncHTTPClientTransport failed: \(error)")
            }
        }()

        /// Pauses by not pulling: no body chunk is read from the connection
        /// or handed to it while paused, so NIO's backpressure stops the bytes.
        @_spi(Transport) public var pausesTransfers: Bool { true }

        /// Sends the request, one exchange (a redirect comes back as it is:
        /// the client follows it); see ``/CourierCore/Transport`` for the contract.
        public func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
            try options.checkCancellation()
            return try await perform(request, options: options)
        }

        /// HTTP/1 exchanges inside async-http-client now, and exchanges waiting
        /// for a connection to their host (``Configuration/maxConnectionsPerHost``
        /// per origin): for metrics and load shedding. Requests that may share
        /// one HTTP/2 connection are not counted.
        public var load: (active: Int, waiting: Int) { admission.load }

        /// Closes every connection and stops the client; requests after it
        /// fail. A connection that the server had already closed is not an
        /// error here: there is nothing left to do about it.
        public func shutdown() async {
            for client in clients.all { try? await client.shutdown() }
        }

        /// One hop, bounded by the total deadline and stopped by cancellation
        /// of the task or of the call.
        private func perform(_ request: OutgoingRequest, options: TransportOptions) async throws
            -> RawResponse
        {
            try await AHCExchange.resending(request, connections: connections) {
                try await self.once($0, options: options)
            }
        }

        /// One exchange, admitted per origin first when it goes out over
        /// HTTP/1; the wait for a place counts against the timeout.
        private func once(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
            guard let origin = admissionOrigin(request.head) else {
                return try await timed(request, options: options)
            }
            let slot = try await admission.admit(origin, options: options)
            defer { slot.release() }
            var rest = options
            rest.timeout = options.timeout.map { $0 - slot.waited }
            return try await timed(request, options: rest)
        }

        private func timed(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse
        {
            if options.timeout == nil, options.idleTimeout == nil, options.cancellation == nil {
                // Nothing to stop it but the task's own cancellation, which
                // async-http-client observes: no task of our own needed.
                do {
                    return try await exchange(request, options: options)
                } catch let early as BeforeHead {
                    throw Task.isCancelled ? AHCErrorMapping.map(early.error, cancelled: true) : early
                } catch {
                    throw AHCErrorMapping.map(error, cancelled: Task.isCancelled)
                }
            }
            // The idle timeout: async-http-client's read timeout is one per client.
            let watchdog = options.idleTimeout.map { IdleWatchdog(limit: $0, clock: options.clock) }
            // The end is fixed now: a timer task the pool starts late must not
            // give the exchange more than its total.
            let deadline = options.timeout.map { TotalDeadline($0) }
            let work = Task {
                guard deadline != nil || watchdog != nil else {
                    return try await self.exchange(request, options: options)
                }
                return try await withThrowingTaskGroup(of: RawResponse.self) { group in
                    group.addTask {
                        try await self.exchange(
                            request, options: options, watchdog: watchdog, deadline: deadline)
                    }
                    if let deadline {
                        group.addTask {
                            try await deadline.expiry()
                            throw CancellationError()  // not reached: `expiry` returns only by throwing
                        }
                    }
                    if let watchdog {
                        group.addTask {
                            try await watchdog.expiry()
                            throw CancellationError()  // not reached: `expiry` returns only by throwing
                        }
                    }
                    defer { group.cancelAll() }
                    guard let first = try await group.next() else {
                        throw TransportError(.other, "the exchange ended without a result")
                    }
                    return first
                }
            }
            do {
                return try await options.withCancellationHandler(
                    { try await work.value }, onCancel: { work.cancel() })
            } catch let early as BeforeHead where !work.isCancelled {
                throw early  // for `resending`, which unwraps it
            } catch let early as BeforeHead {
                throw AHCErrorMapping.map(early.error, cancelled: true)
            } catch {
                throw AHCErrorMapping.map(error, cancelled: work.isCancelled)
            }
        }
    }

    extension AsyncHTTPClientTransport {
        /// The exchange itself.
        fileprivate func exchange(
            _ request: OutgoingRequest, options: TransportOptions, watchdog: IdleWatchdog? = nil,
            deadline: TotalDeadline? = nil
        ) async throws -> RawResponse {
            let proxy = try proxy(for: request)
            let exchange = AHCExchange(
                request: request, options: options, watchdog: watchdog, deadline: deadline)
            guard let proxy else { return try await exchange.run(on: clients.direct) }
            do {
                let response = try await exchange.run(on: clients.client(through: proxy))
                try Self.proxyRefusal(status: response.statusCode, through: proxy)
                return response
            } catch let early as BeforeHead {
                throw BeforeHead(error: Self.proxyError(early.error, through: proxy, beforeHead: true))
            } catch let error as TransportError {
                throw Self.proxyError(error, through: proxy)
            }
        }

        /// The origin whose places an exchange takes, or `nil` when it may be
        /// multiplexed over HTTP/2 and is not held back: plain `http` always
        /// goes over HTTP/1 (async-http-client speaks HTTP/2 only over TLS),
        /// `https` when HTTP/2 is off.
        func admissionOrigin(_ head: HTTPRequest) -> String? {
            guard head.scheme == "http" || !configuration.allowsHTTP2 else { return nil }
            return "\(head.scheme ?? "")://\(head.authority ?? "")"
        }
    }

    /// Runs `body` with a new transport and shuts it down afterwards, whether
    /// `body` returns or throws.
    public func withAsyncHTTPClientTransport<T: Sendable>(
        configuration: AsyncHTTPClientTransport.Configuration = .init(),
        _ body: (AsyncHTTPClientTransport) async throws -> T
    ) async throws -> T {
        try await withShutdown(
            try AsyncHTTPClientTransport(configuration: configuration), shutdown: { await $0.shutdown() },
            body)
    }
#endif
