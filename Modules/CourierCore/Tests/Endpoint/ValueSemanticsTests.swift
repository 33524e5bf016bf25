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

/// Endpoints compare and hash by the request they send (`Endpoint+Hashable`).
struct EndpointHashingTests {
    struct Payload: Encodable, Sendable { let id: Int }

    static func user(_ id: Int) -> Endpoint<RawResponse> {
        Endpoint(.get("users/\(id, name: "id")"), on: .api)
    }

    @Test func equalByWhatTheySend() {
        #expect(Self.user(7) == Self.user(7))
        #expect(Self.user(7) != Self.user(8))
        #expect(Set([Self.user(7), Self.user(7), Self.user(8)]).count == 2)
        let dictionary = [Self.user(7): "seven"]
        #expect(dictionary[Self.user(7)] == "seven")
    }

    @Test func eachPartOfTheRequestCounts() {
        let base = Endpoint<RawResponse>(.post("items"), on: .api, content: .json(["a": 1]))
        #expect(base == Endpoint<RawResponse>(.post("items"), on: .api, content: .json(["a": 1])))
        #expect(base != Endpoint<RawResponse>(.put("items"), on: .api, content: .json(["a": 1])))
        #expect(base != Endpoint<RawResponse>(.post("items"), on: .api, content: .json(["a": 2])))
        #expect(base != Endpoint<RawResponse>(.post("items"), on: .api, content: .form(["a": 1])))
        #expect(base != base.adding(query: ["page": 2]))
        #expect(base != base.adding(headers: [.accept: "text/plain"]))
        #expect(base != base.withoutAuthentication())
        #expect(
            base
                != Endpoint<RawResponse>(
                    .post("items"), on: Node("other", baseURL: "https://other.example.com"),
                    content: .json(["a": 1])))
        #expect(
            Endpoint<RawResponse>(.post("p"), on: .api, content: .json(Payload(id: 1)))
                == Endpoint<RawResponse>(.post("p"), on: .api, content: .json(Payload(id: 1))))
        #expect(
            Endpoint<RawResponse>(.post("p"), on: .api, content: .json(Payload(id: 1)))
                != Endpoint<RawResponse>(.post("p"), on: .api, content: .json(Payload(id: 2))))
        #expect(
            Endpoint<RawResponse>(.post("p"), on: .api, content: .raw([1, 2], contentType: "a/b"))
                != Endpoint<RawResponse>(.post("p"), on: .api, content: .raw([1, 2], contentType: "a/c")))
    }

    @Test func whatProcessesTheCallIsLeftOut() {
        let base = Self.user(7)
        #expect(base == base.tagged("screen"))
        #expect(base == base.retrying(.standard))
        #expect(base == base.coalesced())
        #expect(base == base.onResponse { result, _ in .deliver(result) })
        #expect(base.hashValue == base.tagged("screen").hashValue)
    }

    @Test func aStreamedBodyComparesByTheValueItWasMadeAs() {
        let chunks = AsyncThrowingStream<[UInt8], any Error> { $0.finish() }
        let streamed = Endpoint<RawResponse>(
            .post("upload"), on: .api,
            content: .body(RequestBody(length: nil, chunks: chunks), contentType: "a/b"))
        let copy = streamed
        #expect(streamed == copy)
        let again = Endpoint<RawResponse>(
            .post("upload"), on: .api,
            content: .body(RequestBody(length: nil, chunks: chunks), contentType: "a/b"))
        #expect(streamed != again)
    }
}
