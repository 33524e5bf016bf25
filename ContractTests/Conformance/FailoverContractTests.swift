import CourierCore
import CourierMockServer
import CourierResilience
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import Testing

/// A node with two base URLs on every transport: the first a loopback port
/// that refuses connections, the second courier-mock under another path.
/// The call lands on the second — a POST too, since the first never saw it
/// — rebased onto its path, from the server's own record; the move is told
/// to the client's event monitors.
struct FailoverContractTests {
    final class Moves: EventMonitor {
        private let lines = NIOLockedValueBox<[String]>([])
        var recorded: [String] { lines.withLockedValue { $0 } }
        func callEvent(_ event: CallEvent) {
            guard case .failedOver(let from, let to, let failure) = event.kind else { return }
            let code = (failure.underlying as? TransportError)?.code.description ?? "\(failure.code)"
            lines.withLockedValue { $0.append("\(from.path ?? "") → \(to.path ?? "") after \(code)") }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aCallMovesFromARefusingServerToTheNext(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            try await withRefusingPort { refusing in
                let node = Node(
                    "api", baseURLs: ["http://127.0.0.1:\(refusing)/v1", "\(server.baseURL)/anything"],
                    failover: .primaryFirst)
                let moves = Moves()
                var configuration = APIClient.Configuration(transport: kind.transport, timeout: hangGuard)
                configuration.eventMonitors = [moves]
                let client = APIClient(configuration: configuration)
                let get = try await client.send(
                    Endpoint<RawResponse>(.get("orders/7"), on: node).adding(query: ["expand": "items"]))
                let post = try await client.send(
                    Endpoint<RawResponse>(.post("orders"), on: node, content: .json(["item": 7])))
                #expect(get.statusCode == 200)
                #expect(post.statusCode == 200)
                let arrived = server.journal.entries.map(\.request)
                #expect(arrived.map { $0.method } == ["GET", "POST"])
                #expect(arrived.map(\.path) == ["/anything/orders/7", "/anything/orders"])
                #expect(arrived.first?.queryValue("expand") == "items")
                #expect(String(decoding: arrived.last?.body ?? [], as: UTF8.self) == #"{"item":7}"#)
                #expect(
                    moves.recorded == [
                        "/v1/orders/7?expand=items → /anything/orders/7?expand=items after connectionFailed",
                        "/v1/orders → /anything/orders after connectionFailed",
                    ])
            }
        }
    }
}
