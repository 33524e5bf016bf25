import CourierCore
import CourierCurl
import CourierMockServer
import CourierURLSession
import HTTPTypes
import Testing

/// Courier follows redirects itself, with the same rules over every transport.
struct RedirectTests {
    @Test(arguments: TransportKind.allCases)
    func followsSameOriginHopsKeepingCredentials(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let response = try await kind.transport.send(
                request(server, "/redirect/3", headers: [.authorization: "Bearer secret"]), options: .init())
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
                let target = "http%3A%2F%2F127.0.0.1%3A\(other.port)%2Fanything"
                var headers: HTTPFields = [
                    .authorization: "Bearer secret", .cookie: "session=1", .accept: "application/json",
                ]
                headers[HTTPField.Name("X-Signature") ?? .accept] = "signed"
                let response = try await kind.transport.send(
                    request(server, "/redirect-to?url=\(target)", headers: headers), options: .init())
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
            let response = try await kind.transport.send(
                request(
                    server, "/redirect-to?url=%2Fanything&status=\(status)", method: .post,
                    headers: [.contentType: "text/plain"], body: RequestBody(bytes: Array("hello".utf8))),
                options: .init())
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
            for path in ["/a", "/redirect/9", "/ftp"] {
                do {
                    _ = try await kind.transport.send(request(server, path), options: .init())
                    Issue.record("\(path) was followed")
                } catch let error as TransportError {
                    #expect(error.code == .redirectRefused, "\(path): \(error)")
                }
            }
            try await kind.withFresh(redirects: .never) { transport async throws in
                #expect(
                    try await transport.send(request(server, "/redirect/1"), options: .init()).statusCode
                        == 302)
            }
        }
    }
}
