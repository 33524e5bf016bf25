import CourierMockServer
import Testing

/// courier-mock's rate limit per client key: the IETF fields on every
/// answer, a 429 with `Retry-After` over the limit, each key counted apart,
/// only the covered paths counted, and the admin API never limited.
struct RateLimitTests {
    @Test func eachKeyHasItsOwnLimitAndIsToldWhatIsLeft() async throws {
        var configuration = MockServer.Configuration(
            stubs: try stubs(
                #"{"mappings": [{"request": {"urlPath": "/orders"}, "response": {"body": "{}"}}]}"#))
        configuration.rateLimit = MockRateLimit(requests: 2, window: 3_600, key: .header("X-Client"))
        try await withMockServer(configuration) { server async throws in
            var remaining: [String?] = []
            for _ in 0..<2 {
                let answer = try await RawClient.send(
                    port: server.port, "/orders", headers: [("X-Client", "a")])
                #expect(answer.status == 200)
                #expect(answer.header("RateLimit-Policy") == #""default";q=2;w=3600"#)
                remaining.append(answer.header("RateLimit"))
            }
            #expect(remaining.map { $0?.hasPrefix(#""default";r="#) } == [true, true])
            #expect(remaining[0]?.contains(";r=1;") == true && remaining[1]?.contains(";r=0;") == true)
            let refused = try await RawClient.send(port: server.port, "/orders", headers: [("X-Client", "a")])
            #expect(refused.status == 429)
            let retryAfter = Int(refused.header("Retry-After") ?? "") ?? 0
            #expect(retryAfter > 3_000 && retryAfter <= 3_600)
            #expect(refused.header("RateLimit") == #""default";r=0;t=\#(retryAfter)"#)
            // Another key, and the admin API, are not limited by a's count.
            let other = try await RawClient.send(port: server.port, "/orders", headers: [("X-Client", "b")])
            #expect(other.status == 200)
            let admin = try await RawClient.send(
                port: server.port, "/__admin/requests", headers: [("X-Client", "a")])
            #expect(admin.status == 200)
            let limited = server.journal.entries.filter { $0.fault == "rate limited" }
            #expect(limited.count == 1 && limited.first?.status == 429)
            #expect(server.journal.entries.filter { $0.request.path == "/orders" }.count == 4)
        }
    }

    @Test func aPathPrefixLimitsOnlyItsPaths() async throws {
        var configuration = MockServer.Configuration()
        configuration.rateLimit = MockRateLimit(requests: 0, window: 60, pathPrefix: "/limited")
        try await withMockServer(configuration) { server async throws in
            #expect(try await RawClient.send(port: server.port, "/limited/x").status == 429)
            let free = try await RawClient.send(port: server.port, "/anything")
            #expect(free.status == 200 && free.header("RateLimit") == nil)
        }
    }

    @Test func theCommandLineFormIsRead() {
        #expect(MockRateLimit(spec: "100/60", key: "remote") == MockRateLimit(requests: 100, window: 60))
        #expect(
            MockRateLimit(spec: "5/1", key: "header:X-Api-Key")
                == MockRateLimit(requests: 5, window: 1, key: .header("X-Api-Key")))
        #expect(MockRateLimit(spec: "100", key: "remote") == nil)
        #expect(MockRateLimit(spec: "100/0", key: "remote") == nil)
        #expect(MockRateLimit(spec: "100/60", key: "cookie") == nil)
    }
}
