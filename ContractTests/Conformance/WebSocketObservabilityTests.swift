import CourierCore
import CourierMockServer
import CourierPlugins
import CourierTesting
import CourierWebSocket
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// A WebSocket connection's life in metrics and traces: each message either
/// way counted as it goes (`MetricsPlugin`), the counts kept on the call's
/// span and each pong an event on it (`TracingPlugin`), the span ending
/// with the connection — over every column, against courier-mock.
struct WebSocketObservabilityTests {
    @Test(arguments: WebSocketColumn.allCases)
    func messagesAndPongsReachMetricsAndTheConnectionsSpan(_ column: WebSocketColumn) async throws {
        // A column that cannot open WebSocket connections here runs no body.
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let stubs = try ContractLoader.parse(Array(WebSocketContractTests.stubs.utf8), file: "<websocket>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            try await column.withClient(configure: { configuration in
                configuration.plugins = [MetricsPlugin(factory: metrics), TracingPlugin(tracer: tracer)]
            }) { client in
                let socket = try await client.webSocket(
                    WebSocketContractTests.endpoint("/chat", server),
                    options: .init(
                        pingInterval: nil, pongTimeout: .seconds(600), closeTimeout: .seconds(600),
                        subprotocols: ["chat.v1"]))
                try await Self.chat(socket, pinging: true)
                try await Self.expectObserved(metrics, tracer)
            }
        }
    }

    /// courier-mock's `/chat`: its welcome, a hello and its answer, binary
    /// echoed, a ping when asked, the close.
    static func chat(_ socket: WebSocket, pinging: Bool) async throws {
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("welcome"))
        try await socket.send(text: "hello there")
        #expect(try await messages.next() == .text(#"{"id": 7, "name": "ada"}"#))
        try await socket.send(.binary([1, 2, 3]))
        #expect(try await messages.next() == .binary([1, 2, 3]))
        if pinging { try await socket.ping() }
        await socket.close()
        #expect(try await messages.next() == nil)
    }

    /// What the conversation above left in metrics and on its span.
    static func expectObserved(_ metrics: TestMetrics, _ tracer: InMemoryTracer) async throws {
        let endpoint = ("endpoint", "GET /chat")
        func messages(_ direction: String, _ type: String) throws -> Int64 {
            try metrics.expectCounter(
                "courier_websocket_messages_total", [endpoint, ("direction", direction), ("type", type)]
            ).totalValue
        }
        #expect(try messages("sent", "text") == 1)
        #expect(try messages("sent", "binary") == 1)
        #expect(try messages("received", "text") == 2)
        #expect(try messages("received", "binary") == 1)
        let sentBytes = try metrics.expectCounter(
            "courier_websocket_message_bytes_total", [endpoint, ("direction", "sent")])
        #expect(sentBytes.totalValue == Int64("hello there".utf8.count + 3))
        let pongs = try metrics.expectTimer("courier_websocket_pong_seconds", [endpoint])
        #expect(pongs.values.count == 1)
        // The span ends when the connection's end is reported (after close returns).
        try await waitUntil("the connection's span ended") {
            tracer.finishedSpans.contains { $0.kind == .internal }
        }
        let span = try #require(tracer.finishedSpans.first { $0.kind == .internal })
        #expect(span.attributes["courier.websocket.messages_sent"]?.toSpanAttribute() == .int64(2))
        #expect(span.attributes["courier.websocket.messages_received"]?.toSpanAttribute() == .int64(3))
        #expect(span.attributes["courier.websocket.bytes_sent"]?.toSpanAttribute() == .int64(14))
        #expect(span.events.map(\.name) == ["courier.websocket.pong"])
    }
}
