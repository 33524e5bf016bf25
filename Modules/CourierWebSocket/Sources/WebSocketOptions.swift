/// How a WebSocket connection behaves: its limits, its keepalive, its
/// close handshake, and the subprotocols it offers. Each limit ends the
/// connection with a typed error and a close code, never a hang.
public struct WebSocketOptions: Sendable {
    /// The largest message accepted, in bytes, fragments together: 16 MiB.
    /// A larger one closes the connection with 1009.
    public var maxMessageSize: Int
    /// The most frames one message may arrive in: 4,096. More closes the
    /// connection with 1009 (a peer that dribbles one byte a frame).
    public var maxFrameCount: Int
    /// How often a ping is sent while nothing else arrives: 30 s; `nil`
    /// sends none.
    public var pingInterval: Duration?
    /// How long a ping may wait for its pong: 10 s; then the connection
    /// is dropped (`.webSocket`, ``WebSocketFailure/Kind/pongTimeout``).
    public var pongTimeout: Duration
    /// How long the close handshake may take once either side began it:
    /// 5 s; then the connection is dropped.
    public var closeTimeout: Duration
    /// The subprotocols offered (`Sec-WebSocket-Protocol`), best first;
    /// the server's choice is ``WebSocket/subprotocol``.
    public var subprotocols: [String]
    /// How many messages are read ahead of the app: 16. A reader that falls
    /// behind stops the reading from the socket, so the sender is held back
    /// by TCP instead of filling memory.
    public var bufferedMessages: Int
    /// Whether and how a lost connection is opened again: `nil` (the
    /// default) ends the messages with the loss.
    public var reconnection: WebSocketReconnection?

    /// Options with the defaults above.
    public init(
        maxMessageSize: Int = 16 << 20, maxFrameCount: Int = 4_096, pingInterval: Duration? = .seconds(30),
        pongTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(5),
        subprotocols: [String] = [],
        bufferedMessages: Int = 16, reconnection: WebSocketReconnection? = nil
    ) {
        self.maxMessageSize = max(1, maxMessageSize)
        self.maxFrameCount = max(1, maxFrameCount)
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.closeTimeout = closeTimeout
        self.subprotocols = subprotocols
        self.bufferedMessages = max(1, bufferedMessages)
        self.reconnection = reconnection
    }
}
