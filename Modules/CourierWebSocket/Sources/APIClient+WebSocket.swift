@_spi(Locking) @_spi(Transport) public import CourierCore
import HTTPTypes

extension APIClient {
    /// Whether ``webSocket(_:options:plugins:)`` can open connections with
    /// this client's transport, asked without sending anything: `nil` when
    /// it can, else why not (the message of the `.webSocketUnsupported`
    /// error opening one would throw). `CurlTransport` can where the loaded
    /// libcurl has WebSockets (8.11 and later by default),
    /// `AsyncHTTPClientTransport` always, `URLSessionTransport` where
    /// Foundation has WebSocket tasks (Apple platforms; Swift's Linux
    /// toolchains build FoundationNetworking without them).
    public var webSocketUnavailability: String? {
        do {
            _ = try webSocketTransport()
            return nil
        } catch {
            return error.message
        }
    }

    /// The client's transport as one that opens WebSocket connections, or
    /// `.webSocketUnsupported` saying why not.
    private func webSocketTransport() throws(CourierError) -> any WebSocketTransport {
        guard let transport = configuration.transport as? any WebSocketTransport else {
            throw CourierError(
                .webSocketUnsupported, stage: .transport,
                message: "\(type(of: configuration.transport)) cannot open WebSocket connections; "
                    + "CurlTransport (with a libcurl that has WebSockets) and AsyncHTTPClientTransport can")
        }
        if let reason = transport.webSocketUnavailability {
            throw CourierError(.webSocketUnsupported, stage: .transport, message: reason)
        }
        return transport
    }

    /// Opens a WebSocket connection to `endpoint` (a GET; its node, route,
    /// query and headers as for any call) through the client's pipeline:
    /// the opening handshake passes the interceptors (an `Authenticator`
    /// signs it, and a `401` refreshes the credential once and opens again),
    /// follows redirects as the client's policy says, is logged with the
    /// credential fields redacted and counted by metrics and event monitors.
    /// The connection's end is reported to plugins and monitors as the
    /// stream's (`.streamEnded`: bytes and messages received).
    ///
    /// ```swift
    /// let socket = try await client.webSocket(Endpoint<RawResponse>(.get("chat"), on: .api))
    /// try await socket.send(text: "hello")
    /// for try await message in socket.messages { print(message) }
    /// ```
    /// - Parameters:
    ///   - endpoint: The handshake's request; its response model is unused.
    ///   - options: Limits, keepalive, close timeout and subprotocols.
    ///   - plugins: Plugins for this connection only.
    /// - Returns: The open connection.
    /// - Throws: `CourierError`: `.webSocketUnsupported` when the client's
    ///   transport cannot open WebSocket connections (nothing sent), or the
    ///   handshake's failure (`.status` for a refusal, `.transport`, …).
    public func webSocket<Response>(
        _ endpoint: Endpoint<Response>, options: WebSocketOptions = .init(), plugins: [any Plugin] = []
    ) async throws(CourierError) -> WebSocket {
        let transport = try webSocketTransport()
        var handshake = endpoint
        handshake.spec.validation = Validation(statusCodes: [101])
        handshake.spec.envelope = .none
        let spec = handshake
        let first = try await openSession(spec, transport: transport, options: options, plugins: plugins)
        let link = WebSocketLink(first: first, reconnection: options.reconnection, clock: configuration.clock)
        {
            [self] () async throws(CourierError) -> WebSocketSession in
            try await openSession(spec, transport: transport, options: options, plugins: plugins)
        }
        return WebSocket(link: link)
    }

    /// One connection: the handshake through the pipeline, then the session
    /// over the transport's connection.
    private func openSession<Response>(
        _ handshake: Endpoint<Response>, transport: any WebSocketTransport, options: WebSocketOptions,
        plugins: [any Plugin]
    ) async throws(CourierError) -> WebSocketSession {
        let limits = WebSocketLimits(options)
        let opened = Locked<(any WebSocketChannel)?>(nil)
        let hop: StreamHop = { request, transportOptions in
            let opening = try await transport.openWebSocket(
                request, options: transportOptions, limits: limits)
            if let channel = opening.channel {
                // A newer handshake (a replay after a refresh) replaces an older one's connection.
                opened.withLock { old in
                    old?.abort()
                    old = channel
                }
            }
            return StreamingResponse(head: opening.head, body: opening.body)
        }
        let stream: OpenedStream
        do {
            stream = try await openStream(handshake, plugins: plugins, reportsEnd: true, hop: hop)
        } catch {
            opened.withLock { $0?.abort() }
            throw error
        }
        stream.body.cancel()
        guard let channel = opened.withLock({ $0 }) else {
            // An interceptor answered for the server: there is no connection.
            await stream.end(StreamSummary(), nil)
            throw CourierError(
                .webSocketUnsupported, stage: .transport,
                message: "the handshake was answered \(stream.head.status.code) without a connection",
                request: stream.request)
        }
        return WebSocketSession(
            response: stream.head, request: stream.request, channel: channel, options: options,
            clock: stream.clock, decoder: configuration.decoder, plugins: stream.plugins,
            context: stream.context,
            ended: stream.end)
    }
}
