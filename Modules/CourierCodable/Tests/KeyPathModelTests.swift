import CourierCodable
import CourierCore
import CourierTesting
import Testing

/// A model at a key path of the body, without an envelope, or beside one.
struct KeyPathModelTests {
    struct Item: Decodable, Sendable, Equatable { let id: Int }

    static let body = #"{"code":0,"data":{"items":[{"id":1},{"id":2}],"next":null}}"#

    static func client(_ body: String) -> APIClient {
        APIClient(transport: StubTransport.immediate(.json(body)), decoder: .codable)
    }

    @Test func theModelIsReadAtItsPathFromTheBodysRoot() async throws {
        let node = Node("api", baseURL: "https://api.example.com")
        let items = try await Self.client(Self.body).send(
            Endpoint<[Item]>(.get("items"), on: node).decoding(at: "data.items"))
        #expect(items == [Item(id: 1), Item(id: 2)])
    }

    @Test func anEnvelopeIsStillValidatedFirst() async throws {
        let node = Node("api", baseURL: "https://api.example.com", envelope: .standard)
        let ok = try await Self.client(Self.body).send(
            Endpoint<[Item]>(.get("items"), on: node).decoding(at: "data.items"))
        #expect(ok.count == 2)
        let failing = #"{"code":7,"msg":"no","data":{"items":[]}}"#
        do {
            _ = try await Self.client(failing).send(
                Endpoint<[Item]>(.get("items"), on: node).decoding(at: "data.items"))
            Issue.record("a failing envelope decoded")
        } catch {
            #expect(error.code == .envelope)
            #expect(error.businessFailure?.code == 7)
        }
    }

    @Test func aPathThatIsNotThereIsADecodingError() async {
        let node = Node("api", baseURL: "https://api.example.com")
        do {
            _ = try await Self.client(Self.body).send(
                Endpoint<[Item]>(.get("items"), on: node).decoding(at: "data.rows"))
            Issue.record("a missing path decoded")
        } catch {
            #expect(error.code == .decoding)
        }
    }
}
