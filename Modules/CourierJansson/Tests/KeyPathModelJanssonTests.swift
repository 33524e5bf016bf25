import CourierCodable
import CourierCore
import CourierJansson
import CourierTesting
import Testing

/// `decoding(at:)` over jansson: the model read in place at its path.
struct KeyPathModelJanssonTests {
    struct Item: Decodable, Sendable, Equatable { let id: Int }

    @Test func theModelIsReadAtItsPathByJansson() async throws {
        let body = #"{"data":{"items":[{"id":1},{"id":2}],"next":null}}"#
        let client = APIClient(transport: StubTransport.immediate(.json(body)), decoder: .jansson)
        let node = Node("api", baseURL: "https://api.example.com")
        let items = try await client.send(
            Endpoint<[Item]>(.get("items"), on: node).decoding(at: "data.items"))
        #expect(items == [Item(id: 1), Item(id: 2)])
        do {
            _ = try await client.send(Endpoint<[Item]>(.get("items"), on: node).decoding(at: "data.rows"))
            Issue.record("a missing path decoded")
        } catch {
            #expect(error.code == .decoding)
        }
    }
}
