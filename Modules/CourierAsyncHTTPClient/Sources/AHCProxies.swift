#if AsyncHTTPClient
    import AsyncHTTPClient
    @_spi(Locking) @_spi(Transport) import CourierCore
    @_spi(Transport) import CourierProxies
    import HTTPTypes
    import NIOPosix

    extension AsyncHTTPClientTransport {
        /// What async-http-client can do: HTTP proxies (plain and `CONNECT`)
        /// with Basic credentials, and SOCKS5 without credentials; no HTTPS
        /// proxies and no Digest. Its proxy is one per `HTTPClient`, so a
        /// choice per request is carried out with one client per proxy.
        static let proxySupport = ProxySupport(
            transport: "AsyncHTTPClientTransport", kinds: [.http, .socks5], schemes: [.http: [.basic]],
            customProxyTLS: false, choosesPerRequest: true)
    }

    /// The `HTTPClient`s of one transport: the direct one, and one per proxy
    /// a request has been routed through, made with the same settings when
    /// first needed and shut down with the transport.
    final class AHCClients: Sendable {
        let direct: HTTPClient
        private let settings: HTTPClient.Configuration
        private let proxied = Locked<[Proxy: HTTPClient]>([:])

        init(settings: HTTPClient.Configuration) {
            self.settings = settings
            direct = HTTPClient(
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: settings)
        }

        /// The client for requests through `proxy`, or the direct one.
        func client(through proxy: Proxy?) -> HTTPClient {
            guard let proxy else { return direct }
            return proxied.withLock { clients in
                if let client = clients[proxy] { return client }
                var settings = self.settings
                switch proxy.kind {
                case .socks5:
                    settings.proxy = .socksServer(host: proxy.host, port: proxy.port)
                case .http, .https:
                    settings.proxy = .server(
                        host: proxy.host, port: proxy.port,
                        authorization: proxy.credentials.map {
                            .basic(username: $0.user, password: $0.password)
                        })
                }
                let client = HTTPClient(
                    eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: settings)
                clients[proxy] = client
                return client
            }
        }

        /// Every client, for shutting down.
        var all: [HTTPClient] { [direct] + proxied.withLock { Array($0.values) } }
    }

    extension AsyncHTTPClientTransport {
        /// The proxy `request` goes through (checked), `nil` for direct.
        func proxy(for request: OutgoingRequest) throws(TransportError) -> Proxy? {
            try Self.proxySupport.proxy(
                for: configuration.proxy, scheme: request.head.scheme ?? "",
                authority: request.head.authority ?? "")
        }

        /// `error`, said as the proxy's failure where it is one (`beforeHead`:
        /// no response had begun).
        static func proxyError(_ error: TransportError, through proxy: Proxy, beforeHead: Bool = false)
            -> TransportError
        {
            switch error.code {
            case .connectionFailed, .dnsFailure:
                return TransportError(
                    .proxyUnreachable, "the proxy \(proxy) could not be reached: \(error.message)")
            case .proxyAuthenticationFailed:
                return TransportError(
                    error.code,
                    "the proxy \(proxy) answered CONNECT with 407: "
                        + (proxy.credentials == nil ? "it wants credentials" : "it refused the credentials"))
            case .proxyTunnelFailed:
                // async-http-client does not say which status the proxy answered.
                return TransportError(
                    error.code,
                    "the proxy \(proxy) refused CONNECT (async-http-client does not report its status): "
                        + error.message)
            case .socksFailed:
                return TransportError(error.code, "the SOCKS5 proxy \(proxy) failed: \(error.message)")
            case .other, .connectionReset, .emptyResponse:
                // Before any response through SOCKS5: the negotiation or its
                // reply (NIOSOCKS's errors, a proxy that closed instead of connecting).
                guard beforeHead, proxy.kind == .socks5 else { return error }
                return TransportError(.socksFailed, "the SOCKS5 proxy \(proxy) failed: \(error.message)")
            default:
                return error
            }
        }

        /// A `407` answered through a proxy, as the typed error it is.
        static func proxyRefusal(status: Int, through proxy: Proxy?) throws(TransportError) {
            guard let proxy, status == 407 else { return }
            throw TransportError(
                .proxyAuthenticationFailed,
                "the proxy \(proxy) answered 407: "
                    + (proxy.credentials == nil ? "it wants credentials" : "it refused the credentials"))
        }
    }
#endif
