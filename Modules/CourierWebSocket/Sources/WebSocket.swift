@_spi(Locking) public import CourierCore
public import HTTPTypes

/// An open WebSocket connection (RFC 6455), made by
/// `APIClient.webSocket(_:options:plugins:)`: send messages, read the
/// peer's as an `AsyncSequence` (``messages``), ping, close.
///
/// One task of its own reads the connection: it answers pings, sees pongs
/// and the close, checks text for UTF-8, and keeps up to
/// ``WebSocketOptions/bufferedMessages`` messages ahead of the app; a reader
/// that falls behind stops it, and the transport stops reading the socket.
/// Every way the connection can end — a close, a limit, a dropped socket, a
/// keepalive that goes unanswered — ends ``messages`` (normally for a close
/// with 1000 or 1001, else with `CourierError.Code.webSocket`) and fails
/// later sends; none leaves a task waiting. Dropping the last reference
/// (the sequences hold one while iterated) closes the connection with 1001.
public final class WebSocket: Sendable {
    let link: WebSocketLink
    /// The connection in use now (a reconnect replaces it).
    var session: WebSocketSession { link.session }

    init(link: WebSocketLink) { self.link = link }

    deinit {
        let link = link
        Task { await link.close(.goingAway) }
    }

    /// Connections opened again after one was lost (``WebSocketOptions/reconnection``).
    public var reconnections: Int { link.reconnections }

    /// The server's `101` answer (the latest connection's).
    public var response: HTTPResponse { session.response }
    /// The handshake request as it was sent (last hop).
    public var request: HTTPRequest? { session.request }
    /// The subprotocol the server chose, if any.
    public var subprotocol: String? { session.subprotocol }
    /// The close the peer sent, once it sent one.
    public var peerClose: WebSocketClose? { session.peerClose }

    /// Sends `message`; returns once the transport has written it (a message
    /// whose send returned is on its way, not in a buffer of Courier's).
    /// - Throws: `CourierError.Code.webSocket` once the connection is
    ///   closing or closed (``WebSocketFailure/Kind/alreadyClosed``), or when
    ///   the write fails.
    /// While a lost connection is being restored (``WebSocketOptions/reconnection``),
    /// waits for the new one and sends there.
    public func send(_ message: WebSocketMessage) async throws(CourierError) {
        try await link.send(message, self)
    }

    /// Sends `text` as a text message.
    public func send(text: String) async throws(CourierError) { try await link.send(.text(text), self) }

    /// Sends a ping and waits for its pong, at most ``WebSocketOptions/pongTimeout``.
    /// - Throws: `CourierError.Code.webSocket`: ``WebSocketFailure/Kind/pongTimeout``
    ///   (the connection is then dropped), or a closed connection.
    public func ping() async throws(CourierError) { try await session.ping() }

    /// Closes the connection: sends `close`, waits for the peer's close at
    /// most ``WebSocketOptions/closeTimeout``, then ends the connection;
    /// ``messages`` ends normally. Closing twice, or after the peer closed,
    /// does nothing more.
    public func close(_ close: WebSocketClose = .normal) async { await link.close(close) }

    /// The peer's messages, in order, each once: one reader at a time. Ends
    /// when the connection closes with 1000 or 1001; throws
    /// `CourierError.Code.webSocket` for any other end.
    public var messages: WebSocketMessages { WebSocketMessages(socket: self) }

    /// The peer's messages decoded as `Model` by the client's decoder (JSON
    /// by default), text or binary alike.
    public func messages<Model: Decodable & Sendable>(as type: Model.Type) -> WebSocketDecodedMessages<Model>
    {
        WebSocketDecodedMessages(socket: self)
    }
}
