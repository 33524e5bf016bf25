import CourierMockServer
import Testing

/// courier-mock refuses what a strict server refuses, naming the rule, so
/// that a contract catches a client's wire mistake; it can be told not to.
struct WireRuleTests {
    @Test func forbiddenRequestsGetA400ThatNamesTheRule() async throws {
        try await withMockServer { server async throws in
            let cases: [(headers: [(String, String)], target: String, rule: String)] = [
                ([("Cookie", "a=1"), ("Cookie", "b=2")], "/anything", "RFC 6265 §5.4"),
                ([("Host", "127.0.0.1")], "/anything", "RFC 9112 §3.2"),
                ([], "http://elsewhere.example/anything", "RFC 9112 §3.2.2"),
            ]
            for (headers, target, rule) in cases {
                let response = try await RawClient.send(port: server.port, target, headers: headers)
                #expect(response.status == 400, "\(rule): \(response.statusLine)")
                #expect(response.bodyText.hasPrefix(rule), "\(response.bodyText)")
            }
            // One Cookie field with several crumbs is what RFC 6265 asks for.
            let joined = try await RawClient.send(
                port: server.port, "/anything", headers: [("Cookie", "a=1; b=2")])
            #expect(joined.status == 200)
            let refused = server.journal.entries.filter { $0.status == 400 }
            #expect(refused.count == 3)
            #expect(refused.allSatisfy { $0.fault?.hasPrefix("refused: RFC") == true })
        }
    }

    @Test func aLenientServerAnswersThemAll() async throws {
        var configuration = MockServer.Configuration()
        configuration.refusesForbiddenRequests = false
        try await withMockServer(configuration) { server async throws in
            let response = try await RawClient.send(
                port: server.port, "/anything", headers: [("Cookie", "a=1"), ("Cookie", "b=2")])
            #expect(response.status == 200)
        }
    }
}

/// RFC 9110 §9.3.2: the answer to HEAD is GET's head — status, fields, the
/// Content-Length GET would get — and no content, which a client on a
/// kept-alive connection would otherwise read as its next response.
struct HeadRequestTests {
    static func head(_ port: Int, _ target: String, headers: [(String, String)] = []) async throws
        -> RawExchange
    {
        try await RawClient.exchange(port: port, RawClient.request("HEAD", target, headers: headers))
    }

    static func afterHead(_ exchange: RawExchange) -> [UInt8] {
        let bytes = exchange.bytes
        guard
            let end = (0..<max(0, bytes.count - 3)).first(where: {
                bytes[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10])
            })
        else { return bytes }
        return Array(bytes[(end + 4)...])
    }

    @Test func aHeadAnswerHasGetsHeadAndNoContent() async throws {
        let stub = StubMapping(
            id: "page", request: RequestPattern(url: .path("/page")),
            responses: [
                StubResponse(
                    status: 200, headers: [("Content-Type", "text/plain")], body: Array("hello".utf8))
            ])
        try await withMockServer(.init(stubs: [stub])) { server async throws in
            for target in ["/page", "/anything", "/status/404"] {
                let exchange = try await Self.head(server.port, target)
                #expect(exchange.text.hasPrefix("HTTP/1.1 "), "\(target): \(exchange.text)")
                #expect(Self.afterHead(exchange) == [], "\(target) sent content: \(exchange.text)")
            }
            let page = try await Self.head(server.port, "/page")
            #expect(page.text.contains("Content-Length: 5\r\n"))
        }
    }

    @Test func headIsGetForADocumentWithoutHead() async throws {
        try await withMockServer(OpenAPIServeTests.configuration()) { server async throws in
            let exchange = try await Self.head(server.port, "/books?limit=2")
            #expect(exchange.text.hasPrefix("HTTP/1.1 200 "), "\(exchange.text)")
            #expect(Self.afterHead(exchange) == [])
            #expect(server.journal.entries.last?.operationID == "listBooks")
            let refused = try await RawClient.send(port: server.port, "/covers", method: "PUT", body: [])
            #expect(refused.header("Allow") == "POST")
        }
    }
}
