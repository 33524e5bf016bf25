import CourierCodable
@_spi(Locking) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// RELIABILITY §3.6.2: one user's response is never served to another, and
/// no credential reaches a store.
struct CredentialTests {
    /// The token the current user has.
    final class Session: Sendable {
        private let token = Locked("token-A")
        var current: String { token.withLock { $0 } }
        func switchTo(_ next: String) { token.withLock { $0 = next } }
    }

    /// Answers with the bearer token's owner as the name, as `/me` would.
    static func me() -> Origin {
        Origin { head, _ in
            let token =
                head.headerFields[.authorization]?.replacingOccurrences(of: "Bearer ", with: "") ?? "nobody"
            return .json(#"{"id": 1, "name": "\#(token)"}"#, headers: [.cacheControl: "max-age=60"])
        }
    }

    let me = Endpoint<User>(.get("me"), on: .api)

    @Test func aCredentialedResponseIsNotStoredUnlessTheEndpointOptsIn() async throws {
        let origin = Self.me()
        let cache = ResponseCache()
        let session = Session()
        let client = makeClient(origin, cache: cache, interceptors: [.bearer { session.current }])
        _ = try await client.send(me.cache(.cancelNetwork))
        _ = try await client.send(me.cache(.cancelNetwork))
        #expect(origin.count == 2)
        #expect(cache.memory?.count == 0)
        #expect(cache.statistics.writes == 0)
    }

    @Test func optedInTheKeyIncludesTheCredential() async throws {
        let origin = Self.me()
        let session = Session()
        let client = makeClient(origin, cache: ResponseCache(), interceptors: [.bearer { session.current }])
        let endpoint = me.cache(.cancelNetwork) { $0.storesCredentialedResponses = true }
        #expect(try await client.send(endpoint).name == "token-A")
        #expect(try await client.response(endpoint).attempts == 0)  // A's own entry
        session.switchTo("token-B")
        // Token A's body is never served for token B.
        #expect(try await client.send(endpoint).name == "token-B")
        #expect(try await client.response(endpoint).attempts == 0)
        session.switchTo("token-A")
        #expect(try await client.send(endpoint).name == "token-A")
        #expect(origin.count == 2)
    }

    @Test func credentialFieldsOnTheEndpointCountToo() async throws {
        let origin = Self.me()
        let cache = ResponseCache()
        let client = makeClient(origin, cache: cache)
        for field in [
            HTTPField(name: .authorization, value: "Basic YTpi"), HTTPField(name: .cookie, value: "sid=1"),
        ]
            + [HTTPField(name: HTTPField.Name("X-API-Key")!, value: "k")]
        {
            let endpoint = me.adding(headers: HTTPFields([field])).cache(.cancelNetwork)
            _ = try await client.send(endpoint)
            _ = try await client.send(endpoint)
        }
        #expect(origin.count == 6)
        #expect(cache.statistics.writes == 0)
    }

    @Test func aPerAttemptBearerIsKeyedByWhatItDeclares() async throws {
        // The token is added per attempt, after the cache stage; `.bearer`
        // declares its digest, so an endpoint that opts in is keyed by it.
        let origin = Self.me()
        let session = Session()
        let client = makeClient(
            origin, cache: ResponseCache(), attemptInterceptors: [.bearer { session.current }])
        let endpoint = me.cache(.cancelNetwork) { $0.storesCredentialedResponses = true }
        #expect(try await client.send(endpoint).name == "token-A")
        #expect(try await client.response(endpoint).attempts == 0)
        session.switchTo("token-B")
        #expect(try await client.send(endpoint).name == "token-B")
        #expect(origin.count == 2)
    }

    @Test func anUndeclaredPerAttemptInterceptorMeansNoCaching() async throws {
        // A closure that sets a credential and says nothing of it: whose
        // response it is cannot be told, so even an endpoint that opts in is not cached.
        let origin = Self.me()
        let cache = ResponseCache()
        let signing = ClosureInterceptor { request, _, next in
            var request = request
            request.head.headerFields[.authorization] = "Bearer token-A"
            return try await next(request)
        }
        let client = makeClient(origin, cache: cache, attemptInterceptors: [signing])
        let endpoint = me.cache(.cancelNetwork) { $0.storesCredentialedResponses = true }
        _ = try await client.send(endpoint)
        _ = try await client.send(endpoint)
        #expect(origin.count == 2)
        #expect(cache.statistics.writes == 0)
    }

    /// Sets the session's token in `prepare`; declares its digest, or nothing.
    struct TokenPlugin: Plugin {
        let token: @Sendable () -> String
        let declares: Bool
        func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity {
            declares ? .digest(of: token()) : .undeclared
        }
        func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
            var request = request
            request.headerFields[.authorization] = "Bearer \(token())"
            return request
        }
    }

    /// Two users' clients sharing `cache`, each with its token set by a plugin.
    static func users(declaring declares: Bool, _ origin: Origin, _ cache: ResponseCache) -> (
        alice: APIClient, bob: APIClient
    ) {
        let (alice, bob) = (
            TokenPlugin(token: { "token-A" }, declares: declares),
            TokenPlugin(token: { "token-B" }, declares: declares)
        )
        return (
            makeClient(origin, cache: cache, plugins: [alice]),
            makeClient(origin, cache: cache, plugins: [bob])
        )
    }

    @Test func aPluginTokenKeysTheCacheAndTwoUsersNeverShare() async throws {
        // One shared cache, two clients, each with its user's plugin: the
        // seed of the bug this guards against (user B served A's body).
        let origin = Self.me()
        let cache = ResponseCache()
        let endpoint = me.cache(.cancelNetwork) { $0.storesCredentialedResponses = true }
        let (alice, bob) = Self.users(declaring: true, origin, cache)
        #expect(try await alice.send(endpoint).name == "token-A")
        #expect(try await bob.send(endpoint).name == "token-B")
        #expect(try await alice.response(endpoint).attempts == 0)  // her own entry
        #expect(try await bob.response(endpoint).model.name == "token-B")
        // Per-call plugins on one client, the same.
        let shared = makeClient(origin, cache: cache)
        let carol = TokenPlugin(token: { "token-C" }, declares: true)
        #expect(try await shared.send(endpoint, plugins: [carol]).name == "token-C")
        #expect(
            try await shared.send(endpoint, plugins: [TokenPlugin(token: { "token-D" }, declares: true)]).name
                == "token-D")
        #expect(origin.count == 4)
    }

    @Test func anUndeclaredPluginFailsClosed() async throws {
        // Without an opt-in for credentialed responses, and with one: a
        // plugin that does not say what it adds is never cached for anybody.
        let origin = Self.me()
        let cache = ResponseCache()
        for optIn in [false, true] {
            let endpoint = me.cache(.cancelNetwork) { $0.storesCredentialedResponses = optIn }
            let (alice, bob) = Self.users(declaring: false, origin, cache)
            #expect(try await alice.send(endpoint).name == "token-A")
            #expect(try await bob.send(endpoint).name == "token-B")
        }
        #expect(origin.count == 4)
        #expect(cache.statistics.writes == 0)
    }

    @Test func aComponentThatDeclaresNoneAndAddsACredentialIsStopped() async throws {
        // Said it adds nothing, then set `Authorization`: the cache keyed the
        // call without it, so the call fails before anything is sent.
        let origin = Self.me()
        let lying = ClosureInterceptor(name: "lying") { request, _, next in
            var request = request
            request.head.headerFields[.authorization] = "Bearer token-A"
            return try await next(request)
        }.declaring(.none)
        let client = makeClient(origin, cache: ResponseCache(), attemptInterceptors: [lying])
        await #expect {
            _ = try await client.send(me.cache(.cancelNetwork))
        } throws: { error in
            let error = error as? CourierError
            return error?.code == .invalidRequest && error?.message.contains("Authorization") == true
        }
        #expect(origin.count == 0)
    }

    @Test func theRequestDecidesEvenWhenTheEndpointOptsOutOfAuthentication() async throws {
        // `withoutAuthentication()` tells interceptors not to sign; one that signs anyway
        let origin = Origin.versions()
        let client = makeClient(origin, cache: ResponseCache(), interceptors: [.bearer { "token-A" }])
        let endpoint = Endpoint<User>(.get("public"), on: .api).withoutAuthentication().cache(.cancelNetwork)
        // (`.bearer` does) leaves a token on the request, and the cache goes by the request.
        _ = try await client.send(endpoint)
        _ = try await client.send(endpoint)
        #expect(origin.count == 2)
    }

    @Test func noStoreIsRespectedInEveryMode() async throws {
        for mode in [CacheReadMode.cancelNetwork, .alsoNetwork, .http] {
            let origin = Origin.versions(headers: [.cacheControl: "no-store"])
            let cache = ResponseCache()
            let client = makeClient(origin, cache: cache)
            _ = try await client.send(Endpoint<User>(.get("users/7"), on: .api).cache(mode))
            _ = try await client.send(Endpoint<User>(.get("users/7"), on: .api).cache(mode))
            await cache.settle()
            #expect(origin.count == 2, "\(mode)")
            #expect(cache.statistics.writes == 0, "\(mode)")
        }
        // A request that says no-store is not stored either.
        let origin = Origin.versions()
        let cache = ResponseCache()
        let client = makeClient(origin, cache: cache)
        _ = try await client.send(
            Endpoint<User>(.get("users/7"), on: .api, headers: [.cacheControl: "no-store"]).cache(
                .cancelNetwork))
        #expect(cache.statistics.writes == 0)
    }

    @Test func aSharedCacheNeverStoresPrivateResponses() async throws {
        for (sharing, writes) in [(CacheSharing.private, 1), (.shared, 0)] {
            let origin = Origin.versions(headers: [.cacheControl: "private, max-age=60"])
            let cache = ResponseCache(sharing: sharing)
            _ = try await makeClient(origin, cache: cache).send(
                Endpoint<User>(.get("users/7"), on: .api).cache(.http))
            #expect(cache.statistics.writes == writes, "\(sharing)")
        }
    }

    @Test func aSharedCacheStoresAnAuthorisedResponseOnlyWhenItSaysSo() async throws {
        for (control, writes) in [("max-age=60", 0), ("public, max-age=60", 1), ("s-maxage=60", 1)] {
            let origin = Origin.versions(headers: [.cacheControl: control])
            let cache = ResponseCache(sharing: .shared)
            let client = makeClient(origin, cache: cache, interceptors: [.bearer { "token-A" }])
            _ = try await client.send(
                Endpoint<User>(.get("me"), on: .api).cache(.http) { $0.storesCredentialedResponses = true })
            #expect(cache.statistics.writes == writes, "\(control)")
        }
    }

    @Test func noSensitiveFieldReachesTheDisk() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try await DiskStore.open(directory: directory, inlineLimit: 8)
            let cache = ResponseCache(memory: nil, disk: disk)
            let origin = Origin { _, _ in
                .json(
                    #"{"id": 1, "name": "Ada"}"#,
                    headers: [
                        .setCookie: "session=cookie-secret-123; HttpOnly", .vary: "Authorization, Cookie",
                        HTTPField.Name("X-API-Key")!: "response-key-secret", .cacheControl: "max-age=60",
                    ])
            }
            let client = makeClient(origin, cache: cache, interceptors: [.bearer { "bearer-secret-456" }])
            let endpoint = Endpoint<User>(.get("me"), on: .api, headers: [.cookie: "sid=cookie-secret-789"])
                .cache(.cancelNetwork) { $0.storesCredentialedResponses = true }
            _ = try await client.send(endpoint)
            await cache.settle()
            // The response, and its copy in its variant's place (it varies).
            #expect(try await disk.count() == 2)
            // Every byte the store wrote: database, WAL, body files.
            var written: [UInt8] = []
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                written += (try? [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))) ?? []
            }
            let text = String(decoding: written, as: UTF8.self)
            for secret in [
                "cookie-secret-123", "response-key-secret", "bearer-secret-456", "cookie-secret-789",
            ] {
                #expect(!text.contains(secret), "\(secret) reached the disk")
            }
            #expect(text.contains("Ada"))  // the body did
            // And the stored entry still answers the same user (Vary on digests).
            #expect(try await client.response(endpoint).attempts == 0)
        }
    }
}
