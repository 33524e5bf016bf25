@_spi(Transport) package import CourierCore
package import HTTPTypes

/// What a transport's WebSocket connection says, in order: whole messages
/// (fragments joined, within ``WebSocketLimits``) and control frames.
package enum WebSocketInbound: Sendable, Equatable {
    /// A text message's bytes (checked for UTF-8 by ``WebSocket``).
    case text([UInt8])
    /// A binary message.
    case binary([UInt8])
    /// A ping, to be answered with a pong carrying the same payload.
    case ping([UInt8])
    /// A pong.
    case pong([UInt8])
    /// The peer's close frame; `nil` when it carried no code.
    case close(WebSocketClose?)
}

/// What ``WebSocket`` sends through a transport's connection.
package enum WebSocketOutbound: Sendable, Equatable {
    case message(WebSocketMessage)
    case ping([UInt8])
    case pong([UInt8])
    case close(WebSocketClose)
}

/// The limits a transport applies as it joins fragments.
package struct WebSocketLimits: Sendable, Hashable {
    package var maxMessageSize: Int
    package var maxFrameCount: Int
    /// Messages read ahead before the transport stops reading the socket.
    package var bufferedMessages: Int
    package var subprotocols: [String]

    package init(_ options: WebSocketOptions) {
        maxMessageSize = options.maxMessageSize
        maxFrameCount = options.maxFrameCount
        bufferedMessages = options.bufferedMessages
        subprotocols = options.subprotocols
    }
}

/// A transport's open WebSocket connection (after `101`). Framing, masking
/// and the joining of fragments are the transport's implementation's (NIO,
/// libcurl, URLSession); ``WebSocket`` does the rest.
package protocol WebSocketChannel: Sendable {
    /// The subprotocol the server chose, if any.
    var subprotocol: String? { get }
    /// The next thing the peer said; `nil` when the connection ended.
    /// - Throws: ``WebSocketFailure`` for a limit or a protocol violation;
    ///   any other error is a connection that broke.
    func receive() async throws -> WebSocketInbound?
    /// Sends a frame; returns once the transport has written it.
    func send(_ frame: WebSocketOutbound) async throws
    /// Drops the connection at once, without a close frame.
    func abort()
}

/// The answer to an opening handshake.
package struct WebSocketOpening: Sendable {
    /// `101`, or the server's refusal (a redirect, a 401, …).
    package var head: HTTPResponse
    /// The connection, for a `101`.
    package var channel: (any WebSocketChannel)?
    /// The refusal's body; empty for a `101`.
    package var body: ResponseBodyStream

    package init(head: HTTPResponse, channel: (any WebSocketChannel)?, body: ResponseBodyStream) {
        self.head = head
        self.channel = channel
        self.body = body
    }
}

/// A transport that can open WebSocket connections. It adds the handshake's
/// own fields (`Upgrade`, `Connection`, `Sec-WebSocket-Key`, `-Version`,
/// `-Protocol`), checks the server's `Sec-WebSocket-Accept`, and answers
/// once the response head is in: a `101` with its connection, or any other
/// status with its body (the client follows redirects and refreshes
/// credentials as for any call).
package protocol WebSocketTransport: Transport {
    /// Why this transport cannot open WebSocket connections here (a libcurl
    /// built without them, a Foundation without the task); `nil` when it can.
    var webSocketUnavailability: String? { get }
    /// Sends the opening handshake for `request` (a GET).
    /// - Throws: ``/CourierCore/TransportError`` when nothing was answered.
    func openWebSocket(_ request: OutgoingRequest, options: TransportOptions, limits: WebSocketLimits)
        async throws -> WebSocketOpening
}

extension WebSocketTransport {
    package var webSocketUnavailability: String? { nil }
}
