import CoreMetrics
public import CourierCore
public import CourierWebSocket

/// WebSocket connections in metrics, as they live (the connection's opening
/// and end are its call's: `<prefix>_requests_total`, `_calls_total`,
/// `_stream_body_bytes_total`):
///
/// | metric | type | dimensions |
/// |---|---|---|
/// | `<prefix>_websocket_messages_total` | counter | `endpoint`, `direction` (`sent`, `received`), `type` (`text`, `binary`) |
/// | `<prefix>_websocket_message_bytes_total` | counter | `endpoint`, `direction` |
/// | `<prefix>_websocket_pong_seconds` | timer | `endpoint`: a ping's round trip |
/// | `<prefix>_websocket_reconnects_total` | counter | `endpoint` |
extension MetricsPlugin: WebSocketObserver {
    /// Counts a message, times a pong, counts a reconnect.
    public func webSocket(_ activity: WebSocketActivity, context: CallContext) {
        let endpoint = ("endpoint", context.name)
        switch activity {
        case .sent(let text, let bytes), .received(let text, let bytes):
            let direction: String
            if case .sent = activity { direction = "sent" } else { direction = "received" }
            Counter(
                label: "\(prefix)_websocket_messages_total",
                dimensions: [endpoint, ("direction", direction), ("type", text ? "text" : "binary")],
                factory: factory
            ).increment()
            Counter(
                label: "\(prefix)_websocket_message_bytes_total",
                dimensions: [endpoint, ("direction", direction)],
                factory: factory
            ).increment(by: bytes)
        case .pongReceived(let roundTrip):
            Timer(label: "\(prefix)_websocket_pong_seconds", dimensions: [endpoint], factory: factory)
                .recordNanoseconds(roundTrip.nanoseconds)
        case .reconnected:
            Counter(label: "\(prefix)_websocket_reconnects_total", dimensions: [endpoint], factory: factory)
                .increment()
        }
    }
}
