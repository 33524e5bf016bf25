import CourierAuthentication
import CourierCodable
@_spi(Locking) import CourierCore
import CourierRedis
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import MetricsTestKit
import Testing

@testable import CourierCache
@testable import CourierCacheRedis

/// What only the shared store does: namespaces, outages, timeouts, `AUTH`,
/// and the credential rule across instances — against a real redis-server.
struct RedisStoreTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func keysAreDigestsUnderTheNamespaceAndAppsDoNotSeeEachOther() async throws {
        try await withRedis { server in
            let shop = RedisStore(redisConfiguration(server, namespace: "shop"))
            let blog = RedisStore(redisConfiguration(server, namespace: "blog"))
            let key = CacheKey(hashing: "GET https://api.example.com/v1/users/7?token=secret")
            try await shop.store(textEntry("shop's"), for: key)
            #expect(try await blog.entry(for: key, now: now) == nil)
            try await blog.store(textEntry("blog's"), for: key)
            #expect(try await shop.entry(for: key, now: now)?.body == Array("shop's".utf8))
            let raw = try rawConnection(server)
            guard case .array(let names) = try raw.send("KEYS", "*") else {
                Issue.record("KEYS did not answer a list")
                return
            }
            let keys = names.compactMap(\.bytes).map { String(decoding: $0, as: UTF8.self) }
            #expect(keys.contains("courier:{shop:v1}:e:\(key.digest)"))
            #expect(
                keys.allSatisfy { $0.hasPrefix("courier:{shop:v1}:") || $0.hasPrefix("courier:{blog:v1}:") })
            #expect(!keys.contains { $0.contains("users") || $0.contains("secret") })
            // Removing one app's entries leaves the other's; a new version starts empty.
            try await blog.removeAll()
            #expect(try await blog.entry(for: key, now: now) == nil)
            #expect(try await shop.entry(for: key, now: now) != nil)
            var next = redisConfiguration(server, namespace: "shop")
            next.version = 2
            #expect(try await RedisStore(next).entry(for: key, now: now) == nil)
        }
    }

    @Test func anEntryWithAnExpiryGetsThatLifetimeAsATTL() async throws {
        try await withRedis { server in
            let store = RedisStore(redisConfiguration(server))
            let key = CacheKey(hashing: "ttl")
            try await store.store(textEntry("x", at: now, expires: now.addingTimeInterval(90)), for: key)
            try await store.store(textEntry("y", at: now, expires: nil), for: CacheKey(hashing: "forever"))
            let raw = try rawConnection(server)
            let keys = RedisKeys(namespace: "tests", version: 1)
            let ttl = try raw.send("PTTL", keys.entry(key.digest)).integer ?? -1
            // The lifetime, not a date on the test clock read as wall time (which would be long past).
            #expect(ttl > 0 && ttl <= 90_000)
            #expect(try raw.send("PTTL", keys.entry(CacheKey(hashing: "forever").digest)) == .integer(-1))
        }
    }

    /// Redis killed mid-run: calls go on (memory and the network), one
    /// warning, failures counted; restarted: the store is back by itself.
    @Test func anOutageDegradesToMemoryAndRecovers() async throws {
        try await withRedis { server in
            let handler = InMemoryLogHandler()
            let metrics = TestMetrics()
            var configuration = redisConfiguration(server)
            configuration.logger = Logger(label: "redis-test") { _ in handler }
            configuration.metricsFactory = metrics
            let clock = TestClock()
            let cache = ResponseCache(
                memoryAndShared: RedisStore(configuration), memoryTimeToLive: .seconds(5), clock: clock)
            let upstream = Upstream.versioned("p")
            let api = client(of: upstream, cache: cache, clock: clock)
            let profile = Endpoint<Profile>(.get("profiles/7"), on: .fleet).cache(.http)
            #expect(try await api.send(profile).name == "p-1")
            await cache.settle()

            await server.kill()
            // Past the memory tier's five seconds: memory has let go, Redis is gone.
            clock.advance(by: .seconds(6))
            for _ in 0..<3 {
                let reply = try await api.response(profile)
                #expect(reply.model.id == 7)  // never a failed call
                await cache.settle()
            }
            #expect(cache.statistics.storeFailures >= 2)
            let warnings = handler.entries.filter { $0.level == .warning }
            #expect(warnings.count == 1)
            #expect(warnings.first?.message.description.contains("unavailable") == true)
            #expect(
                try metrics.expectCounter("courier_cache_shared_failures", [("namespace", "tests")])
                    .totalValue >= 2)
            #expect(
                try metrics.expectGauge("courier_cache_shared_up", [("namespace", "tests")]).lastValue == 0)

            try await server.launch()
            let shared = try #require(cache.disk as? RedisStore)
            try await shared.ping()
            #expect(handler.entries.contains { $0.level == .notice && "\($0.message)".contains("back") })
            #expect(
                try metrics.expectGauge("courier_cache_shared_up", [("namespace", "tests")]).lastValue == 1)
            // Writes reach it again: what this instance stores now, another reads.
            clock.advance(by: .seconds(120))
            _ = try await api.send(profile)
            await cache.settle()
            let other = ResponseCache(memoryAndShared: RedisStore(configuration), clock: clock)
            let otherUpstream = Upstream.versioned("other")
            let otherAPI = client(of: otherUpstream, cache: other, clock: clock)
            #expect(try await otherAPI.response(profile).attempts == 0)
            #expect(otherUpstream.requests.isEmpty)
        }
    }

    /// A server that does not answer (every client paused) costs a call the
    /// command timeout, then the call goes on without it.
    @Test func aStalledServerIsATimeoutAndTheCallGoesOn() async throws {
        try await withRedis { server in
            var configuration = redisConfiguration(server)
            configuration.commandTimeout = .milliseconds(200)
            let store = RedisStore(configuration)
            try await Self.pingUntilAnswered(store)
            let raw = try rawConnection(server)
            // CLIENT PAUSE answers at once and then holds every client's
            // commands (its own too): the stall starts before the read, by
            // order, not by timing. (DEBUG SLEEP would race the read.)
            #expect(try raw.send("CLIENT", "PAUSE", "600000", "ALL") == .status("OK"))
            do throws(CacheStoreError) {
                _ = try await store.entry(for: CacheKey(hashing: "k"), now: now)
                Issue.record("a paused server answered")
            } catch {
                #expect(error.code == .timeout, "\(error)")
            }
            let clock = TestClock()
            let cache = ResponseCache(memoryAndShared: store, clock: clock)
            let upstream = Upstream.versioned("slow")
            let api = client(of: upstream, cache: cache, clock: clock)
            let profile = Endpoint<Profile>(.get("profiles/7"), on: .fleet).cache(.http)
            #expect(try await api.send(profile).name == "slow-1")
            // Nothing but a restart ends a pause of every client; the store is back by itself.
            await server.kill()
            try await server.launch()
            try await Self.pingUntilAnswered(store)
        }
    }

    /// Pings until the server answers. A healthy server's answer can take
    /// longer than a 200 ms command timeout on a loaded machine, so a
    /// timeout is asked again (until `waitUntil`'s hang guard); any other
    /// failure is thrown at once.
    static func pingUntilAnswered(_ store: RedisStore) async throws {
        try await waitUntil("the server answers a ping") {
            do throws(CacheStoreError) {
                try await store.ping()
                return true
            } catch {
                guard error.code == .timeout else { throw error }
                return false
            }
        }
    }

    @Test func passwordsAndACLUsersAuthenticateAndNeverShow() async throws {
        try await withRedis(["--requirepass", "s3cret-pass"]) { server in
            var configuration = redisConfiguration(server)
            configuration.credentials = .init(password: "wrong-pass")
            let refused = RedisStore(configuration)
            do throws(CacheStoreError) {
                try await refused.ping()
                Issue.record("a wrong password was accepted")
            } catch {
                #expect(error.code == .unavailable)
                #expect("\(error)".contains("refused the credentials"))
                #expect(!"\(error)".contains("wrong-pass"))
            }
            configuration.credentials = .init(password: "s3cret-pass")
            #expect("\(configuration.credentials.map(String.init(describing:)) ?? "")".contains("redacted"))
            let store = RedisStore(configuration)
            try await store.store(textEntry("a"), for: CacheKey(hashing: "a"))
            #expect(try await store.entry(for: CacheKey(hashing: "a"), now: now) != nil)

            // An ACL user limited to the namespace's keys.
            let admin = try RedisConnection(configuration.linkSettings)
            let created = try admin.send(
                "ACL", "SETUSER", "fleet", "on", ">fleet-pass", "~courier:{tests:v1}:*", "+@all")
            #expect(created == .status("OK"))
            configuration.credentials = .init(user: "fleet", password: "fleet-pass")
            let limited = RedisStore(configuration)
            #expect(try await limited.entry(for: CacheKey(hashing: "a"), now: now) != nil)
        }
    }

    /// Where the token comes from: the request the cache sees (the
    /// endpoint's header, a per-call interceptor, an `Authenticator`), or
    /// added after it and declared (a per-attempt interceptor, a client's
    /// plugin's `prepare`, a plugin given to the one call). (The cookie jar
    /// is keyed as in the memory and disk tiers: ContractTests' identity matrix.)
    enum TokenSource: CaseIterable, Sendable {
        case endpointHeader, perCall, authenticator, perAttempt, plugin, callPlugin
    }

    /// An `Authenticator`'s provider with a fixed token.
    struct FixedToken: CredentialProvider {
        func apply(_ credential: String, to request: inout HTTPRequest) throws {
            request.headerFields[.authorization] = "Bearer \(credential)"
        }
        func refresh(_ credential: String, through client: APIClient) async throws -> String { credential }
    }

    /// A client and the endpoint (and per-call plugins) it calls.
    struct Caller {
        let client: APIClient
        let endpoint: Endpoint<Profile>
        var plugins: [any Plugin] = []

        init(_ client: APIClient, _ endpoint: Endpoint<Profile>, plugins: [any Plugin] = []) {
            self.client = client
            self.endpoint = endpoint
            self.plugins = plugins
        }

        func call() async throws -> Reply<Profile> { try await client.response(endpoint, plugins: plugins) }
    }

    /// Sets a token in `prepare` and declares its digest.
    struct TokenPlugin: Plugin {
        let token: String
        func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity {
            .digest(of: token)
        }
        func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
            var request = request
            request.headerFields[.authorization] = "Bearer \(token)"
            return request
        }
    }

    /// RELIABILITY §3.6.2 across instances: token A's body is never served
    /// for token B, though both instances share one Redis — whichever
    /// component puts the token on.
    @Test(arguments: TokenSource.allCases)
    func oneUsersResponseIsNeverServedToAnotherAcrossInstances(source: TokenSource) async throws {
        try await withRedis { server in
            let clock = TestClock()
            let me = Endpoint<Profile>(.get("me"), on: .fleet).cache(.cancelNetwork) {
                $0.storesCredentialedResponses = true
            }
            /// One instance's client, and its call of `me` for `token`.
            func instance(token: String) -> (Caller, Upstream, ResponseCache) {
                let upstream = Upstream { head, _ in
                    let name = ["Bearer token-A": "Ada", "Bearer token-B": "Bob"][
                        head.headerFields[.authorization] ?? ""]
                    return .json(
                        #"{"id": 1, "name": "\#(name ?? "nobody")"}"#,
                        headers: [.cacheControl: "public, max-age=60"])
                }
                let cache = ResponseCache(
                    memoryAndShared: RedisStore(redisConfiguration(server)), clock: clock)
                let plain = client(of: upstream, cache: cache, clock: clock)
                let caller: Caller =
                    switch source {
                    case .endpointHeader:
                        Caller(plain, me.adding(headers: [.authorization: "Bearer \(token)"]))
                    case .perCall:
                        Caller(
                            client(
                                of: upstream, cache: cache, clock: clock, interceptors: [.bearer { token }]),
                            me)
                    case .authenticator:
                        Caller(
                            client(
                                of: upstream, cache: cache, clock: clock,
                                interceptors: [Authenticator(FixedToken(), for: [.fleet], credential: token)]),
                            me)
                    case .perAttempt:
                        Caller(
                            client(
                                of: upstream, cache: cache, clock: clock,
                                attemptInterceptors: [.bearer { token }]),
                            me)
                    case .plugin:
                        Caller(
                            client(
                                of: upstream, cache: cache, clock: clock, plugins: [TokenPlugin(token: token)]
                            ), me)
                    case .callPlugin:
                        Caller(plain, me, plugins: [TokenPlugin(token: token)])
                    }
                return (caller, upstream, cache)
            }
            let (first, _, firstCache) = instance(token: "token-A")
            #expect(try await first.call().model.name == "Ada")
            await firstCache.settle()
            let (second, secondUpstream, secondCache) = instance(token: "token-B")
            #expect(try await second.call().model.name == "Bob")
            #expect(secondUpstream.requests.count == 1)
            await secondCache.settle()
            let (third, thirdUpstream, _) = instance(token: "token-A")
            let again = try await third.call()
            #expect(again.attempts == 0)  // A's own entry, from Redis
            #expect(again.model.name == "Ada")
            #expect(thirdUpstream.requests.isEmpty)
            // No credential reached Redis, in a key or a value.
            let raw = try rawConnection(server)
            guard case .array(let names) = try raw.send("KEYS", "*") else {
                Issue.record("KEYS did not answer a list")
                return
            }
            // The entries are there (two principals' responses, and their
            // bookkeeping): a check over no keys would prove nothing.
            #expect(names.count >= 2, "KEYS answered \(names.count) names")
            for name in names.compactMap(\.bytes) {
                let value = try raw.command([Array("DUMP".utf8), name]).bytes ?? []
                let text = String(decoding: name + value, as: UTF8.self)
                #expect(!text.contains("token-"))
            }
        }
    }

    /// Concurrent calls share writes to the server (a pipeline): each still
    /// gets its own reply.
    @Test func concurrentCallsEachGetTheirOwnReply() async throws {
        try await withRedis { server in
            let store = RedisStore(redisConfiguration(server))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        try await store.store(textEntry("body \(index)"), for: CacheKey(hashing: "k\(index)"))
                    }
                }
                try await group.waitForAll()
            }
            let bodies = try await withThrowingTaskGroup(of: (Int, [UInt8]?).self) { group in
                for index in 0..<200 {
                    group.addTask {
                        (index, try await store.entry(for: CacheKey(hashing: "k\(index)"), now: now)?.body)
                    }
                }
                var found: [Int: [UInt8]?] = [:]
                for try await (index, body) in group { found[index] = body }
                return found
            }
            #expect(bodies.count == 200)
            for (index, body) in bodies { #expect(body == Array("body \(index)".utf8)) }
            #expect(try await store.count() == 200)
        }
    }

    @Test func beyondItsQueueTheStoreRefusesAtOnce() async throws {
        try await withRedis { server in
            var configuration = redisConfiguration(server)
            configuration.maxPendingOperations = 0
            do throws(CacheStoreError) {
                _ = try await RedisStore(configuration).entry(for: CacheKey(hashing: "k"), now: now)
                Issue.record("an operation beyond the queue ran")
            } catch {
                #expect(error.code == .busy)
            }
        }
    }
}
