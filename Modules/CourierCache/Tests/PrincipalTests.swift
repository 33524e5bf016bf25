import CourierAuthentication
import CourierCodable
@_spi(Locking) import CourierCore
import CourierTesting
import HTTPTypes
import Testing

@testable import CourierCache

/// A rotating token of one user: an ``Authenticator`` whose provider names
/// the user (``CredentialProvider/principal(of:)``) keeps the user's cache
/// entries and coalesced exchanges across a refresh; two users never share.
struct PrincipalTests {
    /// Tokens `<user>-<n>`: the user is the principal, `n` changes on each refresh.
    struct UserTokens: CredentialProvider {
        var names = true
        func apply(_ token: String, to request: inout HTTPRequest) {
            request.headerFields[.authorization] = "Bearer \(token)"
        }
        func refresh(_ token: String, through client: APIClient) async throws -> String { token + "'" }
        func principal(of token: String) -> String? {
            names ? String(token.prefix(while: { $0 != "-" })) : nil
        }
    }

    let me = Endpoint<User>(.get("me"), on: .api).cache(.cancelNetwork) {
        $0.storesCredentialedResponses = true
    }

    @Test func aRefreshedTokenOfTheSameUserIsServedTheUsersEntry() async throws {
        let origin = CredentialTests.me()
        let auth = Authenticator(UserTokens(), for: [.api], credential: "ada-1")
        let client = makeClient(origin, cache: ResponseCache(), interceptors: [auth])
        #expect(try await client.send(me).name == "ada-1")
        auth.replaceCredential(with: "ada-2")  // a refresh: same user, new token
        let reply = try await client.response(me)
        #expect(reply.attempts == 0)
        #expect(reply.model.name == "ada-1")
        // Another user: never the first user's entry.
        auth.replaceCredential(with: "bob-1")
        #expect(try await client.send(me).name == "bob-1")
        #expect(origin.count == 2)
    }

    @Test func withoutAPrincipalARefreshStartsNewEntries() async throws {
        let origin = CredentialTests.me()
        let auth = Authenticator(UserTokens(names: false), for: [.api], credential: "ada-1")
        let client = makeClient(origin, cache: ResponseCache(), interceptors: [auth])
        _ = try await client.send(me)
        auth.replaceCredential(with: "ada-2")
        #expect(try await client.send(me).name == "ada-2")
        #expect(origin.count == 2)
    }

    @Test func aCredentialChangedAfterSigningIsKeyedByItselfNotThePrincipal() async throws {
        let origin = CredentialTests.me()
        let auth = Authenticator(UserTokens(), for: [.api], credential: "ada-1")
        // A later per-call interceptor replaces the token the authenticator signed:
        // the principal no longer vouches for what is sent.
        let swap = ClosureInterceptor(name: "swap") { request, _, next in
            var request = request
            request.head.headerFields[.authorization] = "Bearer mallory-1"
            return try await next(request)
        }
        // One cache for both: were the principal to stand for the swapped
        // token, mallory's call would be served ada's entry.
        let cache = ResponseCache()
        let signedOnly = makeClient(origin, cache: cache, interceptors: [auth])
        let swapped = makeClient(origin, cache: cache, interceptors: [auth, swap])
        _ = try await signedOnly.send(me)
        #expect(try await swapped.send(me).name == "mallory-1")
        auth.replaceCredential(with: "ada-2")
        // Keyed by mallory's token itself, so still mallory's own entry; never ada's.
        let reply = try await swapped.response(me)
        #expect(reply.model.name == "mallory-1")
        #expect(origin.count == 2)
    }
}
