@_spi(Locking) public import CourierCore
public import CourierWebSocket
import Tracing

/// A WebSocket connection on its call's span: the span lives as long as the
/// connection (it ends when the connection does), its messages are counted
/// in attributes kept current (`courier.websocket.messages_sent`,
/// `.messages_received`, `.bytes_sent`, `.bytes_received`) — a long
/// connection's thousands of messages would overflow any exporter's event
/// limit — and each pong (`courier.websocket.pong`, with
/// `courier.websocket.round_trip_ms`) and reconnect
/// (`courier.websocket.reconnect`, with `courier.websocket.reconnects`) is
/// an event.
extension TracingPlugin: WebSocketObserver {
    /// Records `activity` on the span of the call that opened the connection.
    public func webSocket(_ activity: WebSocketActivity, context: CallContext) {
        let found = spans.withLock { spans -> (any Span, WebSocketCounts)? in
            guard var entry = spans[context.callID] else { return nil }
            entry.webSocket.count(activity)
            spans[context.callID] = entry
            return (entry.call, entry.webSocket)
        }
        guard let (span, counts) = found else { return }
        switch activity {
        case .sent:
            span.attributes["courier.websocket.messages_sent"] = counts.messagesSent
            span.attributes["courier.websocket.bytes_sent"] = counts.bytesSent
        case .received:
            span.attributes["courier.websocket.messages_received"] = counts.messagesReceived
            span.attributes["courier.websocket.bytes_received"] = counts.bytesReceived
        case .pongReceived(let roundTrip):
            span.addEvent(
                SpanEvent(
                    name: "courier.websocket.pong",
                    attributes: [
                        "courier.websocket.round_trip_ms": .int64(Int64(roundTrip.nanoseconds / 1_000_000))
                    ]))
        case .reconnected(let count):
            span.addEvent(
                SpanEvent(
                    name: "courier.websocket.reconnect",
                    attributes: ["courier.websocket.reconnects": .int64(Int64(count))]))
        }
    }
}

/// A connection's messages and bytes each way, so far.
struct WebSocketCounts {
    var messagesSent = 0
    var bytesSent = 0
    var messagesReceived = 0
    var bytesReceived = 0

    mutating func count(_ activity: WebSocketActivity) {
        switch activity {
        case .sent(_, let bytes):
            messagesSent += 1
            bytesSent += bytes
        case .received(_, let bytes):
            messagesReceived += 1
            bytesReceived += bytes
        case .pongReceived, .reconnected:
            break
        }
    }
}
