import CourierAuthentication
import CourierCore
import CourierMockServer
import CourierPlugins
import Foundation
import Testing

/// `ChallengeAuthenticator` over every transport, against courier-mock's
/// `/digest-auth` route, which checks each Digest answer in full with
/// OpenSSL's hashes — not Courier's. Each case asserts the wire from the
/// server's journal.
struct ChallengeAuthenticationTests {
    /// A route variant: `qop`, algorithm, and the query it adds.
    struct Variant: Sendable, CustomTestStringConvertible {
        let qop: String
        let algorithm: String
        var query = ""
        var testDescription: String { "\(qop) \(algorithm)\(query)" }
    }

    static let variants = [
        Variant(qop: "auth", algorithm: "MD5"), Variant(qop: "auth", algorithm: "MD5-sess"),
        Variant(qop: "auth", algorithm: "SHA-256"), Variant(qop: "auth", algorithm: "SHA-256-sess"),
        Variant(qop: "auth-int", algorithm: "SHA-256"), Variant(qop: "none", algorithm: "MD5"),
        Variant(qop: "auth", algorithm: "SHA-256", query: "?userhash=true"),
    ]

    static func client(_ kind: TransportKind, _ auth: ChallengeAuthenticator) -> APIClient {
        APIClient(
            configuration: .init(transport: kind.transport, attemptInterceptors: [auth], timeout: hangGuard))
    }

    /// Two calls: the first is challenged and answered, the second answered
    /// at once; the server accepted both answers.
    @Test(arguments: TransportKind.allCases, Self.variants)
    func theServerAcceptsEachDigestAnswer(kind: TransportKind, variant: Variant) async throws {
        try await withMockServer { server async throws in
            let node = Node("mock", baseURL: server.baseURL)
            let client = Self.client(
                kind, ChallengeAuthenticator(user: "ada", password: "s3cret", for: [node]))
            let path: RoutePath = "digest-auth/\(variant.qop)/ada/s3cret/\(variant.algorithm)"
            var endpoint = Endpoint<RawResponse>(.get(path), on: node)
            if !variant.query.isEmpty {
                endpoint = Endpoint(.get(path), on: node, query: ["userhash": "true"])
            }
            if variant.qop == "auth-int" {
                // The body as sent — compressed by a call interceptor — is what the answer covers.
                endpoint = Endpoint<RawResponse>(
                    .post(path), on: node,
                    content: .raw(
                        Array(String(repeating: #"{"n":1},"#, count: 200).utf8),
                        contentType: "application/json")
                ).compressingRequestBody(.gzip)
            }
            for _ in 0..<2 {
                let response = try await client.send(endpoint)
                #expect(response.statusCode == 200)
            }
            let entries = server.journal.entries
            #expect(entries.map(\.status) == [401, 200, 200], "\(entries.map(\.status))")
            let answers = entries.map { $0.request.header("Authorization") }
            #expect(answers.first == .some(nil))
            #expect(answers.dropFirst().allSatisfy { $0?.hasPrefix("Digest ") == true })
            if variant.qop != "none" {
                #expect(answers[1]?.contains("nc=00000001") == true)
                #expect(answers[2]?.contains("nc=00000002") == true)
            }
            if variant.qop == "auth-int" {
                #expect(entries.allSatisfy { $0.request.header("Content-Encoding") == "gzip" })
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aNonceTheServerRetiresIsReplacedOnce(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let node = Node("mock", baseURL: server.baseURL)
            let client = Self.client(
                kind, ChallengeAuthenticator(user: "ada", password: "s3cret", for: [node]))
            let endpoint = Endpoint<RawResponse>(
                .get("digest-auth/auth/ada/s3cret/SHA-256/stale-after/2"), on: node)
            for _ in 0..<3 { _ = try await client.send(endpoint) }
            let entries = server.journal.entries
            // nc 1 (after the challenge), nc 2 at once, nc 3 refused as stale, a new nonce's nc 1.
            #expect(entries.map(\.status) == [401, 200, 200, 401, 200], "\(entries.map(\.status))")
            let refusal = try #require(entries.dropFirst(3).first?.response?.headers)
            #expect(refusal.contains { $0.name == "WWW-Authenticate" && $0.value.contains("stale=true") })
            #expect(entries.last?.request.header("Authorization")?.contains("nc=00000001") == true)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func wrongPasswordsEndWithThe401AfterOneAnswer(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let node = Node("mock", baseURL: server.baseURL)
            let client = Self.client(
                kind, ChallengeAuthenticator(user: "ada", password: "wrong", for: [node]))
            let error = await #expect(throws: CourierError.self) {
                try await client.send(
                    Endpoint<RawResponse>(.get("digest-auth/auth/ada/s3cret/MD5"), on: node))
            }
            #expect(error?.response?.statusCode == 401)
            #expect(server.journal.entries.map(\.status) == [401, 401])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func basicIsAnsweredWhereAllowed(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let node = Node("mock", baseURL: server.baseURL)
            let auth = ChallengeAuthenticator(
                user: "ada", password: "s3cret", for: [node], allowsBasicOverPlainHTTP: true)
            let client = Self.client(kind, auth)
            for _ in 0..<2 {
                _ = try await client.send(Endpoint<RawResponse>(.get("basic-auth/ada/s3cret"), on: node))
            }
            #expect(server.journal.entries.map(\.status) == [401, 200, 200])
            #expect(server.journal.entries.last?.request.header("Authorization") == "Basic YWRhOnMzY3JldA==")
        }
    }

    /// The credentials are for one origin: the other, reached directly or by
    /// a redirect, is never sent them, whatever it asks.
    @Test(arguments: TransportKind.allCases)
    func anotherOriginNeverReceivesTheCredentials(kind: TransportKind) async throws {
        try await withMockServer { other async throws in
            try await withMockServer { server async throws in
                let node = Node("mock", baseURL: server.baseURL)
                let auth = ChallengeAuthenticator(
                    user: "ada", password: "s3cret", for: [node], allowsBasicOverPlainHTTP: true)
                let client = Self.client(kind, auth)
                let elsewhere = "http://127.0.0.1:\(other.port)"
                let redirected = Endpoint<RawResponse>(
                    .get("redirect-to"), on: node,
                    query: ["url": .string("\(elsewhere)/digest-auth/auth/ada/s3cret/MD5")])
                let direct = Endpoint<RawResponse>(
                    .get("basic-auth/ada/s3cret"), on: Node("other", baseURL: elsewhere))
                for endpoint in [redirected, direct] {
                    let error = await #expect(throws: CourierError.self) { try await client.send(endpoint) }
                    #expect(error?.response?.statusCode == 401)
                }
                #expect(!other.journal.entries.isEmpty)
                #expect(other.journal.entries.allSatisfy { $0.request.header("Authorization") == nil })
            }
        }
    }
}
