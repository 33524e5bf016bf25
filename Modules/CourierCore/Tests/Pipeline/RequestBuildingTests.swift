import CourierCodable
import CourierCore
import CourierMultipart
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

struct RequestBuildingTests {
    private func sent<R>(_ endpoint: Endpoint<R>, environment: ServerEnvironment = .production) async throws
        -> RecordingTransport.Record
    {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(recorder)
        client.environment = environment
        _ = try? await client.send(endpoint)
        return try #require(recorder.records.first)
    }

    @Test func pathValuesAreEscapedAsOneSegment() async throws {
        let name = "a/b?c#d e"
        let record = try await sent(Endpoint<RawResponse>(.get("users/\(name)/repos"), on: .api))
        #expect(record.head.path == "/v1/users/a%2Fb%3Fc%23d%20e/repos")
        #expect(record.head.authority == "api.example.com")
        #expect(record.head.scheme == "https")
    }

    @Test func aMultipartBoundaryWinsOverANodeOrEndpointContentType() async throws {
        // XSYNetwork's bug: a node-wide JSON `Content-Type` replaced the
        // form's, so the server could not find the parts.
        let node = Node(
            "json", baseURL: "https://api.example.com/v1", headers: [.contentType: "application/json"])
        var form = MultipartForm(boundary: "XyZ")
        form.append(field: "title", value: "hi")
        let upload = Endpoint<RawResponse>(.post("upload"), on: node).replacing(content: .multipart(form))
        for endpoint in [upload, upload.adding(headers: [.contentType: "application/json"])] {
            let record = try await sent(endpoint)
            #expect(record.head.headerFields[values: .contentType] == ["multipart/form-data; boundary=XyZ"])
        }
        // Any other body keeps the node's or endpoint's choice.
        let json = Endpoint<RawResponse>(.post("items"), on: node).replacing(content: .json(["a": 1]))
        let vendor = "application/vnd.api+json"
        #expect(try await sent(json).head.headerFields[.contentType] == "application/json")
        #expect(
            try await sent(json.adding(headers: [.contentType: vendor])).head.headerFields[.contentType]
                == vendor)
    }

    @Test func dotSegmentsCannotClimbOutOfThePath() async throws {
        let parent = ".."
        let record = try await sent(Endpoint<RawResponse>(.get("files/\(parent)/secret"), on: .api))
        #expect(record.head.path == "/v1/files/%2E%2E/secret")
    }

    @Test func anEncodedQueryIsSentByteForByte() async throws {
        let signed = "X-Amz-Signature=ab%2Fcd&X-Amz-Expires=60&list=a,b&empty="
        let record = try await sent(
            Endpoint<RawResponse>(.get("files/report.pdf"), on: .api, query: ["v": 2]).encodedQuery(signed))
        #expect(record.head.path == "/v1/files/report.pdf?v=2&" + signed)
        // A space or a fragment cannot be smuggled in: the call fails before sending.
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let error = await expectFailure(
            makeClient(recorder), Endpoint<RawResponse>(.get("f"), on: .api).encodedQuery("a=b c#frag"))
        #expect(error?.code == .invalidRequest)
        #expect(recorder.records.isEmpty)
        // The message shows the query's shape, never a signature or token in it.
        let leaking = await expectFailure(
            makeClient(recorder), Endpoint<RawResponse>(.get("f"), on: .api).encodedQuery("sig=s3cr3t&a=b c"))
        #expect(leaking?.message.contains("sig=***&a=b c") == true, "\(leaking?.message ?? "")")
        #expect(leaking.map { !"\($0)".contains("s3cr3t") } == true)
        let templated = Route(.get, RoutePath(escaped: "orders/42", template: "getOrder"))
        #expect(templated.description == "GET getOrder" && templated.path.escaped == "orders/42")
    }

    @Test func routeTemplateHidesValuesAndNamesThem() {
        let route = Route.get("users/\(42)/posts/\("x")")
        #expect(route.description == "GET users/{Int}/posts/{String}")
        let named = Route.get("users/\(42, name: "id")/posts/\("a b", name: "slug")")
        #expect(named.description == "GET users/{id}/posts/{slug}")
        #expect(named.path.escaped == "users/42/posts/a%20b")
    }

    @Test func baseURLAndPathJoinWithOneSlash() async throws {
        let node = Node("n", baseURL: "http://127.0.0.1:8080/api/")
        let record = try await sent(Endpoint<RawResponse>(.get("/ping"), on: node, query: ["a": 1]))
        #expect(record.head.path == "/api/ping?a=1")
        #expect(record.head.authority == "127.0.0.1:8080")
    }

    @Test func theBaseQueryTheParametersAndAnEncodedQueryJoinInOrder() async throws {
        let node = Node("n", baseURL: "https://h.example/api?key=k1")
        let all = try await sent(
            Endpoint<RawResponse>(.get("ping"), on: node, query: ["a": 1]).encodedQuery("sig=s"))
        #expect(all.head.path == "/api/ping?key=k1&a=1&sig=s")
        let baseOnly = try await sent(Endpoint<RawResponse>(.get("ping"), on: node))
        #expect(baseOnly.head.path == "/api/ping?key=k1")
        let encodedOnly = try await sent(Endpoint<RawResponse>(.get("ping"), on: .api).encodedQuery("sig=s"))
        #expect(encodedOnly.head.path == "/v1/ping?sig=s")
        let none = try await sent(Endpoint<RawResponse>(.get("ping"), on: .api))
        #expect(none.head.path == "/v1/ping")
    }

    @Test func environmentSwitchChoosesTheBaseURL() async throws {
        let node = Node(
            "n", urls: [.production: "https://prod.example", .development: "https://dev.example"])
        let endpoint = Endpoint<RawResponse>(.get("x"), on: node)
        #expect(try await sent(endpoint).head.authority == "prod.example")
        #expect(try await sent(endpoint, environment: .development).head.authority == "dev.example")
    }

    @Test func missingEnvironmentIsAnInvalidRequest() async throws {
        let node = Node(
            "n", urls: [.production: "https://prod.example", .development: "https://dev.example"])
        let client = makeClient(StubTransport.immediate(.json("{}")))
        client.environment = .mock
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: node))
        #expect(error?.code == .invalidRequest)
        #expect(error?.stage == .build)
        #expect(error?.message.contains("mock") == true)
    }

    /// The percent-escaped and non-ASCII hosts were found by fuzz-request:
    /// the parser decoded `%0D%0A` into the authority.
    @Test(arguments: [
        "ftp://example.com", "not a url", "https://", "", "http://a%0D%0Ab/", "http://a%20b/",
        "http://caf\u{E9}.example/", "http://[::1/", "http://[example]/",
    ])
    func invalidBaseURLsFailClearly(base: String) async {
        let client = makeClient(StubTransport.immediate(.json("{}")))
        let error = await expectFailure(
            client, Endpoint<RawResponse>(.get("x"), on: Node("bad", baseURL: base)))
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("bad") == true)
    }

    /// Found by fuzz-request: non-ASCII literal text went out as raw bytes.
    @Test func nonASCIILiteralRoutesArePercentEncoded() async throws {
        let record = try await sent(Endpoint<RawResponse>(.get("caf\u{E9}/\("\u{E9}")/men\u{FC}"), on: .api))
        #expect(record.head.path == "/v1/caf%C3%A9/%C3%A9/men%C3%BC")
        #expect(Route.get("caf\u{E9}").description == "GET caf\u{E9}")
        let client = makeClient(StubTransport.immediate(.json("{}")))
        let raw = Endpoint<RawResponse>(.get(RoutePath(escaped: "caf\u{E9}")), on: .api)
        #expect(await expectFailure(client, raw)?.code == .invalidRequest)
    }

    @Test func ipv6AndPortsStillWork() async throws {
        let node = Node("n", baseURL: "http://[::1]:8080/api")
        let record = try await sent(Endpoint<RawResponse>(.get("x"), on: node))
        #expect(record.head.authority == "[::1]:8080")
    }

    @Test func literalPathsWithSpacesOrQueriesAreRejected() async {
        let client = makeClient(StubTransport.immediate(.json("{}")))
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("a b?x=1"), on: .api))
        #expect(error?.code == .invalidRequest)
    }

    @Test func endpointHeadersReplaceNodeHeaders() async throws {
        let node = Node(
            "n", baseURL: "https://h.example", headers: [.userAgent: "node", .acceptLanguage: "en"])
        let record = try await sent(
            Endpoint<RawResponse>(.get("x"), on: node, headers: [.userAgent: "endpoint"]))
        #expect(record.head.headerFields[values: .userAgent] == ["endpoint"])
        #expect(record.head.headerFields[.acceptLanguage] == "en")
    }

    @Test func formBodyIsURLEncoded() async throws {
        let record = try await sent(
            Endpoint<RawResponse>(
                .post("login"), on: .api, content: .form(["user": "ada lovelace", "tags": ["x"]])))
        #expect(record.head.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(record.bodyText == "user=ada%20lovelace&tags%5B%5D=x")
    }

    @Test func jsonBodyFromEncodableAndFromParameters() async throws {
        let encodable = try await sent(
            Endpoint<RawResponse>(.post("users"), on: .api, content: .json(User(id: 1, name: "Ada"))))
        #expect(encodable.head.headerFields[.contentType] == "application/json")
        let decoded = try JSONDecoder().decode(User.self, from: Data(try #require(encodable.body)))
        #expect(decoded == User(id: 1, name: "Ada"))

        let parameters = try await sent(
            Endpoint<RawResponse>(
                .post("users"), on: .api, content: .json(["b": 1, "a": [true, nil], "c": ["d": "é"]])))
        #expect(parameters.bodyText == #"{"b":1,"a":[true,null],"c":{"d":"é"}}"#)
    }

    @Test func queryAndBodyGoTogether() async throws {
        let record = try await sent(
            Endpoint<RawResponse>(
                .post("items"), on: .api, query: ["dry": true],
                content: .raw([1, 2], contentType: "application/x-thing")))
        #expect(record.head.path == "/v1/items?dry=true")
        #expect(record.body == [1, 2])
        #expect(record.head.headerFields[.contentType] == "application/x-thing")
    }

    @Test func anExplicitContentTypeHeaderWins() async throws {
        let record = try await sent(
            Endpoint<RawResponse>(
                .post("x"), on: .api, content: .json(["a": 1]),
                headers: [.contentType: "application/vnd.api+json"]))
        #expect(record.head.headerFields[values: .contentType] == ["application/vnd.api+json"])
    }

    @Test func unencodableJSONIsAnInvalidRequest() async {
        let client = makeClient(StubTransport.immediate(.json("{}")))
        let error = await expectFailure(
            client, Endpoint<RawResponse>(.post("x"), on: .api, content: .json(Double.nan)))
        #expect(error?.code == .invalidRequest)
        #expect(error?.underlying != nil)
    }

    @Test func fileUploadStreamsTheFile() async throws {
        let directory = try TemporaryDirectory()
        let contents = (0..<200_000).map { UInt8($0 % 251) }
        let file = try directory.file("blob.bin", contents: contents)
        let record = try await sent(Endpoint<RawResponse>(.put("blob"), on: .api, content: .file(file)))
        #expect(record.bodyLength == 200_000)
        #expect(record.body == contents)
        #expect(record.head.headerFields[.contentType] == "application/octet-stream")
    }

    @Test func missingUploadFileIsAnInvalidRequest() async {
        let client = makeClient(StubTransport.immediate(.json("{}")))
        let missing = URL(fileURLWithPath: "/nonexistent/courier/file.bin")
        let error = await expectFailure(
            client, Endpoint<RawResponse>(.put("x"), on: .api, content: .file(missing)))
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("no such file") == true)
    }
}
