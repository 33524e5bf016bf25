import CourierCore
import CourierCurl
import CourierMockServer
import CourierURLSession
import HTTPTypes
import Testing

/// Courier follows redirects itself, in the pipeline, with the same rules
/// over every transport; a transport sends one request and returns a 3xx as
/// it is. Each case asserts the wire from the server's journal.
struct RedirectTests {
    /// One call of a raw endpoint through a client over `kind`'s transport.
    private func call(
        _ kind: TransportKind, _ server: MockServer, _ path: RoutePath, query: Parameters = .empty,
        method: HTTPRequest.Method = .get, headers: HTTPFields = [:], content: Content = .none,
        redirects: RedirectPolicy = .follow
    ) async throws -> RawResponse {
        let client = APIClient(
            configuration: .init(
                transport: kind.transport, validation: .anyStatus, timeout: hangGuard, redirects: redirects))
        let node = Node("mock", baseURL: "http://127.0.0.1:\(server.port)")
        let route = method == .post ? Route.post(path) : Route.get(path)
        return try await client.send(
            Endpoint<RawResponse>(route, on: node, query: query, content: content, headers: headers))
    }

    @Test(arguments: TransportKind.allCases)
    func aTransportReturnsARedirectAsItIs(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let response = try await kind.transport.send(request(server, "/redirect/2"), options: .guarded)
            #expect(response.statusCode == 302)
            #expect(server.journal.entries.map(\.request.path) == ["/redirect/2"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func followsSameOriginHopsKeepingCredentials(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let response = try await call(
                kind, server, "redirect/3", headers: [.authorization: "Bearer secret"])
            #expect(response.statusCode == 200)
            #expect(
                server.journal.entries.map(\.request.path) == [
                    "/redirect/3", "/redirect/2", "/redirect/1", "/anything",
                ])
            #expect(
                server.journal.entries.allSatisfy { $0.request.header("Authorization") == "Bearer secret" })
        }
    }

    @Test(arguments: TransportKind.allCases)
    func crossOriginHopsDropCredentialsAndInterceptorHeaders(kind: TransportKind) async throws {
        try await withMockServer { other async throws in
            try await withMockServer { server async throws in
                var headers: HTTPFields = [
                    .authorization: "Bearer secret", .cookie: "session=1", .accept: "application/json",
                ]
                headers[HTTPField.Name("X-Signature") ?? .accept] = "signed"
                let response = try await call(
                    kind, server, "redirect-to",
                    query: ["url": .string("http://127.0.0.1:\(other.port)/anything")],
                    headers: headers)
                #expect(response.statusCode == 200)
                let arrived = try #require(other.journal.entries.first)
                #expect(arrived.request.header("Authorization") == nil)
                #expect(arrived.request.header("Cookie") == nil)
                #expect(arrived.request.header("X-Signature") == nil)
                #expect(arrived.request.header("Accept") == "application/json")
            }
        }
    }

    @Test(
        arguments: TransportKind.allCases,
        [(302, "GET", 0), (303, "GET", 0), (307, "POST", 5), (308, "POST", 5)])
    func methodAndBodyPerStatus(kind: TransportKind, expected: (Int, String, Int)) async throws {
        let (status, method, bodyLength) = expected
        try await withMockServer { server async throws in
            let response = try await call(
                kind, server, "redirect-to", query: ["url": "/anything", "status": .int(status)],
                method: .post,
                content: .raw(Array("hello".utf8), contentType: "text/plain"))
            #expect(response.statusCode == 200)
            let final = try #require(server.journal.entries.last)
            #expect(final.request.method == method)
            #expect(final.request.body.count == bodyLength)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func loopsLimitsAndBadTargetsAreRefused(kind: TransportKind) async throws {
        let stubs = try ContractLoader.parse(
            Array(
                #"""
                {"mappings": [
                  {"request": {"urlPath": "/a"}, "response": {"status": 302, "headers": {"Location": "/b"}}},
                  {"request": {"urlPath": "/b"}, "response": {"status": 302, "headers": {"Location": "/a"}}},
                  {"request": {"urlPath": "/ftp"}, "response": {"status": 301, "headers": {"Location": "ftp://example.com/x"}}}
                ]}
                """#.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            for path: RoutePath in ["a", "redirect/9", "ftp"] {
                do {
                    _ = try await call(kind, server, path)
                    Issue.record("/\(path) was followed")
                } catch let error as CourierError {
                    let transport = error.underlying as? TransportError
                    #expect(transport?.code == .redirectRefused, "/\(path): \(error)")
                }
            }
            #expect(try await call(kind, server, "redirect/1", redirects: .never).statusCode == 302)
        }
    }
}
