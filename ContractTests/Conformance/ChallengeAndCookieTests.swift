import CourierCore
import CourierMockServer
import Foundation
import HTTPTypes
import Testing

/// Authentication challenges come back as responses at once, and repeated
/// `Set-Cookie` fields stay separate — over every transport.
struct ChallengeAndCookieTests {
    static let stubs = """
        { "mappings": [
          { "request": { "method": "GET", "urlPath": "/basic" },
            "response": { "status": 401, "headers": { "WWW-Authenticate": "Basic realm=\\"courier\\"" },
                          "body": "basic required" } },
          { "request": { "method": "GET", "urlPath": "/digest" },
            "response": { "status": 401,
                          "headers": { "WWW-Authenticate": "Digest realm=\\"courier\\", qop=\\"auth\\", nonce=\\"dcd98b7102dd2f0e\\"" },
                          "body": "digest required" } },
          { "request": { "method": "GET", "urlPath": "/proxy" },
            "response": { "status": 407, "headers": { "Proxy-Authenticate": "Basic realm=\\"proxy\\"" },
                          "body": "proxy credentials required" } },
          { "request": { "method": "GET", "urlPath": "/two-cookies" },
            "response": { "headers": { "Set-Cookie": [
              "session=abc; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/; HttpOnly",
              "theme=dark; Max-Age=3600",
              "tracking=1; Expires=Thu, 01 Jan 2027 00:00:00 GMT, broken" ] }, "body": "ok" } }
        ] }
        """

    @Test(arguments: TransportKind.allCases, ["/basic-auth/ada/secret", "/basic", "/digest", "/proxy"])
    func aChallengeIsAResponseNotAHang(kind: TransportKind, path: String) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            // A deadline a hang would reach; the answer needs a fraction of it.
            let response = try await kind.transport.send(
                request(server, path), options: .guarded)
            #expect(response.statusCode == (path == "/proxy" ? 407 : 401))
            let challenge = response.headerFields[path == "/proxy" ? .proxyAuthenticate : .wwwAuthenticate]
            #expect(challenge?.isEmpty == false)
            // The challenge's body arrives whole, as any 401's does.
            let expectedBody: [String: String] = [
                "/basic": "basic required", "/digest": "digest required",
                "/proxy": "proxy credentials required",
            ]
            if let text = expectedBody[path] { #expect(response.body == .bytes(Array(text.utf8))) }
            #expect(server.journal.entries.count == 1)  // not retried with made-up credentials
        }
    }

    @Test(arguments: TransportKind.allCases)
    func repeatedSetCookieFieldsStaySeparate(kind: TransportKind) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let response = try await kind.transport.send(request(server, "/two-cookies"), options: .guarded)
            #expect(
                response.headerFields[values: .setCookie] == [
                    "session=abc; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/; HttpOnly",
                    "theme=dark; Max-Age=3600",
                    "tracking=1; Expires=Thu, 01 Jan 2027 00:00:00 GMT, broken",
                ])
        }
    }
}
