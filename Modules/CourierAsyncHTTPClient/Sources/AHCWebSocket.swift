#if AsyncHTTPClient
    @_spi(Locking) @_spi(Transport) package import CourierCore
    import AsyncHTTPClient
    package import CourierWebSocket
    import HTTPTypes
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL
    import NIOWebSocket

    /// WebSocket connections beside async-http-client (which has none): the
    /// same event loops, TLS settings and host overrides, on SwiftNIO's own
    /// client upgrader (`NIOWebSocket`), its frame codec and its frame
    /// aggregator — no framing of Courier's. Direct connections only.
    extension AsyncHTTPClientTransport: WebSocketTransport {
        package func openWebSocket(
            _ request: OutgoingRequest, options: TransportOptions, limits: WebSocketLimits
        )
            async throws -> WebSocketOpening
        {
            if try proxy(for: request) != nil {
                throw TransportError(
                    .unsupported,
                    "AsyncHTTPClientTransport opens WebSocket connections directly, not through a proxy")
            }
            let head = request.head
            let secure = head.scheme == "https" || head.scheme == "wss"
            guard let authority = head.authority,
                let (host, port) = Self.hostAndPort(authority, secure: secure)
            else { throw TransportError(.other, "a WebSocket request needs a host") }
            let tls = secure ? try webSocketTLSContext() : nil
            var fields = HTTPHeaders()
            fields.add(name: "Host", value: authority)
            for field in head.headerFields { fields.add(name: field.name.rawName, value: field.value) }
            if !limits.subprotocols.isEmpty {
                fields.replaceOrAdd(
                    name: "Sec-WebSocket-Protocol", value: limits.subprotocols.joined(separator: ", "))
            }
            let upgradeHead = HTTPRequestHead(
                version: .http1_1, method: .GET, uri: head.path ?? "/", headers: fields)
            let connectTo = configuration.hostOverrides[host] ?? host
            let outcome: EventLoopFuture<AHCWebSocketUpgrade.Negotiated>
            do {
                outcome = try await ClientBootstrap(group: clients.direct.eventLoopGroup)
                    .connectTimeout(.nanoseconds(Int64(configuration.connectTimeout.seconds * 1e9)))
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    // A server that answers and closes at once: its end is an
                    // event, and the pipeline lives to decode what it said.
                    .channelOption(.allowRemoteHalfClosure, value: true)
                    .connect(host: connectTo, port: port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            if let tls {
                                try channel.pipeline.syncOperations.addHandler(
                                    try NIOSSLClientHandler(
                                        context: tls, serverHostname: host.isIPAddress ? nil : host))
                            }
                            return try AHCWebSocketUpgrade.configure(
                                channel, head: upgradeHead, limits: limits)
                        }
                    }
            } catch {
                throw AHCWebSocketUpgrade.transportError(error)
            }
            switch try await AHCWebSocketUpgrade.settle(outcome) {
            case .upgraded(let channel, let response):
                let chosen = response.headerFields.first {
                    $0.name.canonicalName == "sec-websocket-protocol"
                }?.value
                if let chosen, !limits.subprotocols.contains(chosen) {
                    channel.abort()
                    throw TransportError(
                        .protocolError, "the server chose the subprotocol \(chosen), which was not offered")
                }
                return WebSocketOpening(head: response, channel: channel, body: ResponseBodyStream(bytes: []))
            case .refused(let response, let body):
                return WebSocketOpening(head: response, channel: nil, body: ResponseBodyStream(bytes: body))
            }
        }

        /// The `wss` TLS context, made once from the transport's TLS settings.
        private func webSocketTLSContext() throws -> NIOSSLContext {
            if let made = webSocketTLS.withLock({ $0 }) { return made }
            let context = try NIOSSLContext(configuration: AHCTLS.configuration(configuration.tls))
            webSocketTLS.withLock { $0 = $0 ?? context }
            return context
        }

        /// `host` and port of `authority` (`[::1]:8080`, `example.com`).
        static func hostAndPort(_ authority: String, secure: Bool) -> (String, Int)? {
            var host = Substring(authority)
            var port = secure ? 443 : 80
            if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]"),
                let number = Int(host[host.index(after: colon)...])
            {
                port = number
                host = host[..<colon]
            }
            if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
            return host.isEmpty ? nil : (String(host), port)
        }
    }

    extension String {
        /// Whether this is an IPv4 or IPv6 address (no SNI for those).
        var isIPAddress: Bool { (try? SocketAddress(ipAddress: self, port: 0)) != nil }
    }
#endif
