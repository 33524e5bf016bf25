public import CourierCore

/// What happened on an open WebSocket connection, as observers see it
/// (``WebSocketObserver``): each message either way, each pong, each
/// reconnect. The connection's opening and end are the call's, reported to
/// every plugin as for a stream.
public enum WebSocketActivity: Sendable, Hashable {
    /// A message the app sent, once the transport wrote it: text or binary, its size in bytes.
    case sent(text: Bool, bytes: Int)
    /// A message the peer sent, as it was read (ahead of the app, within
    /// ``WebSocketOptions/bufferedMessages``).
    case received(text: Bool, bytes: Int)
    /// A ping (``WebSocket/ping()`` or the keepalive's) was answered after
    /// `roundTrip`, on the client's clock.
    case pongReceived(roundTrip: Duration)
    /// This connection replaced one that was lost
    /// (``WebSocketOptions/reconnection``); `count` reconnects so far.
    case reconnected(count: Int)
}

/// A plugin that also observes WebSocket connections as they live: the
/// client calls it for each ``WebSocketActivity`` of the connections it
/// opens (with the plugin among the client's or the connection's plugins),
/// with the context of the call that opened the connection (its name, its
/// call identifier).
///
/// CourierPlugins' `MetricsPlugin` counts messages and bytes and times
/// pongs; its `TracingPlugin` keeps the counts on the connection's span and
/// adds each pong and reconnect as an event. Called on the connection's own
/// tasks, in order for each direction: keep it quick and never block.
public protocol WebSocketObserver: Plugin {
    /// Records `activity` on the connection `context` opened.
    func webSocket(_ activity: WebSocketActivity, context: CallContext)
}

extension WebSocketMessage {
    /// Whether this is a text message.
    var isText: Bool {
        if case .text = self { return true }
        return false
    }
}
