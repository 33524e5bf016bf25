import CourierCodable
import CourierCore
import CourierMockServer
import CourierTesting
import CourierURLSession
import CourierWebSocket
import Foundation
import HTTPTypes
import Testing

/// URLSessionTransport's WebSockets: where Foundation has WebSocket tasks
/// (Apple platforms) a chat through the pipeline against courier-mock;
/// where it has none (Swift's Linux toolchains build FoundationNetworking
/// without them, whatever libcurl is loaded) the client says why before
/// anything is sent, and opening fails typed with nothing on the wire.
struct URLSessionWebSocketTests {
    @Test func urlSessionOpensWhereFoundationCanAndSaysWhyWhereItCannot() async throws {
        let stubs = try ContractLoader.parse(Array(WebSocketContractTests.stubs.utf8), file: "<websocket>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let transport = URLSessionTransport()
            defer { transport.shutdown() }
            let client = APIClient(configuration: .init(transport: transport, decoder: .codable))
            let endpoint = WebSocketContractTests.endpoint("/chat", server)
            let options = WebSocketOptions(
                pingInterval: nil, closeTimeout: .seconds(600), subprotocols: ["chat.v1"])
            if let unavailability = client.webSocketUnavailability {
                #if canImport(Darwin)
                    Issue.record("Apple's Foundation has WebSocket tasks, yet: \(unavailability)")
                #endif
                #expect(unavailability.contains("FoundationNetworking was built without WebSocket tasks"))
                do {
                    _ = try await client.webSocket(endpoint, options: options)
                    Issue.record("a WebSocket opened over a Foundation without WebSocket tasks")
                } catch {
                    #expect((error as? CourierError)?.code == .webSocketUnsupported)
                }
                #expect(server.journal.entries.isEmpty)
                return
            }
            let socket = try await client.webSocket(endpoint, options: options)
            #expect(socket.response.status.code == 101)
            #expect(socket.subprotocol == "chat.v1")
            try await WebSocketObservabilityTests.chat(socket, pinging: false)
            let seen = WebSocketContractTests.frames(server, "/chat")
            #expect(seen.filter { $0.direction == "in" }.map(\.opcode) == ["text", "binary", "close"])
            #expect(seen.last { $0.direction == "in" }?.closeCode == 1000)
        }
    }
}
