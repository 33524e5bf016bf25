import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// `EndpointSpec` and `Node` share their fields between copies until one
/// changes: a copy must still behave as an independent value.
struct ValueSemanticsTests {
    @Test func changingACopyOfASpecLeavesTheOriginal() {
        let original = EndpointSpec(route: .get("a"), node: .api, query: ["x": 1])
        var copy = original
        copy.query = ["y": 2]
        copy.timeout = .seconds(3)
        copy.route = .post("b")
        #expect(original.query == ["x": 1])
        #expect(original.timeout == nil)
        #expect(original.route == .get("a"))
        #expect(copy.query == ["y": 2] && copy.timeout == .seconds(3) && copy.route == .post("b"))
    }

    @Test func endpointsCopiedByHelpersAreIndependent() {
        let base = Endpoint<RawResponse>(.get("login"), on: .api)
        let changed = base.adding(query: ["captcha": "1"]).adding(headers: [.acceptLanguage: "en"])
        #expect(base.query.isEmpty && base.headers.isEmpty)
        #expect(changed.query == ["captcha": "1"] && changed.headers[.acceptLanguage] == "en")
    }

    @Test func nodesCompareAndHashByTheirFields() {
        let one = Node("n", baseURL: "https://a.example")
        var two = one
        #expect(one == two && one.hashValue == two.hashValue)
        two.headers = [.userAgent: "x"]
        #expect(one != two)
        #expect(one.headers.isEmpty)
        #expect(Node("n", baseURL: "https://a.example") == one)
    }

    @Test func changingANodesURLsChangesWhereRequestsGo() async throws {
        var node = Node("n", baseURL: "https://old.example/v1")
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(recorder)
        node.urls = [.production: "https://new.example/v2"]
        _ = try await client.send(Endpoint<RawResponse>(.get("x"), on: node))
        let head = try #require(recorder.records.first?.head)
        #expect(head.authority == "new.example" && head.path == "/v2/x")
    }

    @Test func aSingleProductionURLServesEveryEnvironmentOthersDoNot() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(recorder)
        client.environment = .development
        _ = try await client.send(
            Endpoint<RawResponse>(.get("x"), on: Node("n", baseURL: "https://one.example")))
        #expect(recorder.records.first?.head.authority == "one.example")
        let onlyStaging = Node("s", urls: ["staging": "https://staging.example"])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: onlyStaging))
        #expect(error?.code == .invalidRequest)
    }
}
