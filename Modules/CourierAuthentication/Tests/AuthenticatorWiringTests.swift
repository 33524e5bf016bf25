import CourierAuthentication
import CourierCodable
@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// How an ``Authenticator`` is wired into a client: no credential before
/// sign-in, the refresh through the client it serves, and a scope it never
/// sends the credential outside of.
struct AuthenticatorWiringTests {
    struct Token: Decodable, Sendable { let token: String }

    /// Refreshes at `POST /v1/token` through the client it is handed.
    struct ClientRefresh: CredentialProvider {
        func apply(_ token: String, to request: inout HTTPRequest) {
            request.headerFields[.authorization] = "Bearer \(token)"
        }
        func refresh(_ token: String, through client: APIClient) async throws -> String {
            try await client.send(Endpoint<Token>(.post("token"), on: .api)).token
        }
    }

    /// `/v1/token` hands out `new`; anything else answers 200 to `Bearer new`, 401 otherwise.
    static func server() -> RecordingTransport {
        RecordingTransport(
            StubTransport { request in
                if request.head.path == "/v1/token" { return .json(#"{"token":"new"}"#) }
                return request.head.headerFields[.authorization] == "Bearer new"
                    ? .json(#"{"ok":true}"#) : .status(401)
            })
    }

    /// Records each attempt's call number and whether it was part of a refresh.
    final class Calls: Plugin {
        let seen = Locked<[(path: String, call: UInt64, refresh: Bool)]>([])
        func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }
        func willSend(_ request: HTTPRequest, context: CallContext) async {
            seen.withLock { $0.append((request.path ?? "", context.callID, context.isCredentialRefresh)) }
        }
    }

    static let me = Endpoint<RawResponse>(.get("me"), on: .api)

    @Test func withoutACredentialCallsFailUntilOneIsGivenAndAfterItIsRemoved() async throws {
        let auth = Authenticator(ClientRefresh(), for: [.api])
        let server = Self.server()
        let client = makeClient(server, callInterceptors: [auth])
        #expect(auth.credential == nil)
        let before = await expectFailure(client, Self.me)
        #expect(before?.code == .authentication)
        #expect(before?.message.contains("no credential") == true)
        // Nothing went out: neither the call nor a refresh of nothing.
        #expect(server.records.isEmpty)
        auth.replaceCredential(with: "new")
        #expect(try await client.response(Self.me).response?.statusCode == 200)
        auth.removeCredential()
        #expect(await expectFailure(client, Self.me)?.code == .authentication)
        #expect(server.records.map { $0.head.headerFields[.authorization] } == ["Bearer new"])
    }

    @Test func theRefreshIsACallOfTheClientItServesAndGoesOutUnsigned() async throws {
        let auth = Authenticator(ClientRefresh(), for: [.api], credential: "old")
        let server = Self.server()
        let calls = Calls()
        let client = makeClient(server, plugins: [calls], callInterceptors: [auth])
        #expect(try await client.response(Self.me).response?.statusCode == 200)
        // The call with the old token, the refresh without one, the replay with the new.
        #expect(
            server.records.map { "\($0.head.path ?? "") \($0.head.headerFields[.authorization] ?? "-")" } == [
                "/v1/me Bearer old", "/v1/token -", "/v1/me Bearer new",
            ])
        // The refresh went through the client's own plugins, as a call of its own, marked.
        let seen = calls.seen.withLock { $0 }
        #expect(seen.map(\.path) == ["/v1/me", "/v1/token", "/v1/me"])
        #expect(seen.map(\.refresh) == [false, true, false])
        #expect(seen[0].call == seen[2].call)
        #expect(seen[1].call != seen[0].call)
        #expect(auth.credential == "new")
    }

    @Test func theCredentialGoesOnlyToTheOriginsOfItsScope() async throws {
        let files = Node("files", baseURL: "https://files.example.com")
        let sameHostOtherPort = Node("admin", baseURL: "https://api.example.com:8443/v1")
        let auth = Authenticator(ClientRefresh(), for: [.api], credential: "new")
        let server = Self.server()
        let client = makeClient(server, callInterceptors: [auth])
        _ = try await client.response(Self.me)
        for node in [files, sameHostOtherPort] {
            // Unsigned, so the server refuses it — and the 401 starts no refresh.
            let error = await expectFailure(client, Endpoint<RawResponse>(.get("me"), on: node))
            #expect(error?.response?.statusCode == 401)
            // …and says why it was unsigned: a node left out of the scope looks like a bad token.
            #expect(
                error?.description.contains(
                    "sent without a credential: the Authenticator signs only https://api.example.com, not https://"
                )
                    == true)
        }
        #expect(
            server.records.map { "\($0.head.authority ?? "") \($0.head.headerFields[.authorization] ?? "-")" }
                == [
                    "api.example.com Bearer new", "files.example.com -", "api.example.com:8443 -",
                ])
        // A scope of origins: the port is part of the origin, the default one implied.
        let origins = AuthenticationScope.origins([
            "HTTPS://API.example.com:443/any/path", "http://files.example.com",
        ])
        #expect(origins.origins == ["https://api.example.com", "http://files.example.com"])
        #expect(
            origins.contains(
                HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/")))
        #expect(
            !origins.contains(
                HTTPRequest(method: .get, scheme: "https", authority: "files.example.com", path: "/")))
    }

    @Test func aNamedPrincipalIsTheCredentialIdentityAndSurvivesARefresh() async throws {
        struct Named: CredentialProvider {
            func apply(_ token: String, to request: inout HTTPRequest) {
                request.headerFields[.authorization] = "Bearer \(token)"
            }
            func refresh(_ token: String, through client: APIClient) async throws -> String { token + "+" }
            func principal(of token: String) -> String? { String(token.prefix(while: { $0 != "-" })) }
        }
        let auth = Authenticator(Named(), for: [.api], credential: "ada-1")
        let context = CallContext(
            callID: 1, name: "me", route: .get("me"), node: .api, environment: .production, attempt: 0)
        #expect(try await auth.credentialIdentity(for: context) == .principal("ada"))
        auth.replaceCredential(with: "ada-2")
        #expect(try await auth.credentialIdentity(for: context) == .principal("ada"))
        auth.replaceCredential(with: "bob-1")
        #expect(try await auth.credentialIdentity(for: context) == .principal("bob"))
        let elsewhere = CallContext(
            callID: 2, name: "me", route: .get("me"),
            node: Node("files", baseURL: "https://files.example.com"),
            environment: .production, attempt: 0)
        #expect(try await auth.credentialIdentity(for: elsewhere) == CredentialIdentity.none)
    }
}
