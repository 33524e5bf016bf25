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
