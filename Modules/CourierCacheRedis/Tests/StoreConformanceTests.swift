import CourierCodable
import CourierCore
import CourierRedis
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache
@testable import CourierCacheRedis

/// One suite, three stores: the memory tier, the SQLite disk tier and Redis
/// (a real `redis-server`) keep the same promises — round trips, expiry,
/// size and count limits, damage, validators and 304 refresh.
struct StoreConformanceTests {
    enum Kind: String, CaseIterable, CustomStringConvertible, Sendable {
        case memory, disk, redis
        var description: String { rawValue }
    }

    /// A store under test and how to damage one of its entries behind its back.
    struct Fixture {
        var store: any CacheStore
        /// Breaks the stored bytes of `key`; `nil` where nothing can (memory).
        var damage: ((CacheKey) async throws -> Void)?
    }

    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(arguments: Kind.allCases)
    func entriesReadBackWhole(_ kind: Kind) async throws {
        try await Self.withStore(kind) { fixture in
            let store = fixture.store
            var small = textEntry("small")
            small.variantFields = [.acceptLanguage: "en"]
            let large = textEntry(String(repeating: "L", count: 200_000))
            let empty = textEntry("", expires: now.addingTimeInterval(60))
            for (name, value) in [("small", small), ("large", large), ("empty", empty)] {
                try await store.store(value, for: CacheKey(hashing: name))
            }
            #expect(try await store.entry(for: CacheKey(hashing: "small"), now: now) == small)
            #expect(try await store.entry(for: CacheKey(hashing: "large"), now: now) == large)
            #expect(try await store.entry(for: CacheKey(hashing: "empty"), now: now) == empty)
            #expect(try await store.entry(for: CacheKey(hashing: "missing"), now: now) == nil)
            // A store replaces what was there.
            try await store.store(empty, for: CacheKey(hashing: "small"))
            #expect(try await store.entry(for: CacheKey(hashing: "small"), now: now) == empty)
            #expect(try await store.totalSize() == 2 * empty.size + large.size)
        }
    }

    @Test(arguments: Kind.allCases)
    func removingOneOrAll(_ kind: Kind) async throws {
        try await Self.withStore(kind) { fixture in
            let store = fixture.store
            for name in ["a", "b", "c"] {
                try await store.store(textEntry(name), for: CacheKey(hashing: name))
            }
            try await store.removeEntry(for: CacheKey(hashing: "b"))
            #expect(try await store.entry(for: CacheKey(hashing: "b"), now: now) == nil)
            #expect(try await store.entry(for: CacheKey(hashing: "a"), now: now) != nil)
            #expect(try await store.totalSize() == 2 * textEntry("a").size)
            try await store.removeAll()
            #expect(try await store.entry(for: CacheKey(hashing: "a"), now: now) == nil)
            #expect(try await store.totalSize() == 0)
        }
    }

    @Test(arguments: Kind.allCases)
    func anExpiredEntryIsAMissAndIsRemoved(_ kind: Kind) async throws {
        try await Self.withStore(kind) { fixture in
            let store = fixture.store
            let soon = textEntry("soon", at: now, expires: now.addingTimeInterval(30))
            let never = textEntry("never", at: now, expires: nil)
            try await store.store(soon, for: CacheKey(hashing: "soon"))
            try await store.store(never, for: CacheKey(hashing: "never"))
            #expect(
                try await store.entry(for: CacheKey(hashing: "soon"), now: now.addingTimeInterval(29)) == soon
            )
            let later = now.addingTimeInterval(30)
            #expect(try await store.entry(for: CacheKey(hashing: "soon"), now: later) == nil)
            #expect(try await store.totalSize() == never.size)
            // No expiry: kept however late it is.
            #expect(try await store.entry(for: CacheKey(hashing: "never"), now: .distantFuture) == never)
            try await store.store(soon, for: CacheKey(hashing: "soon"))
            #expect(try await store.removeExpired(now: later) == 1)
            #expect(try await store.totalSize() == never.size)
        }
    }

    @Test(arguments: Kind.allCases)
    func overItsSizeTheLeastRecentlyReadGo(_ kind: Kind) async throws {
        let body = String(repeating: "x", count: 1_000)
        let size = textEntry(body).size
        try await Self.withStore(kind, sizeLimit: size * 3) { fixture in
            let store = fixture.store
            for name in ["a", "b", "c"] {
                try await store.store(textEntry(body), for: CacheKey(hashing: name))
            }
            // Reading "a" makes it the most recent, so "b" is the oldest.
            _ = try await store.entry(for: CacheKey(hashing: "a"), now: now)
            try await store.store(textEntry(body), for: CacheKey(hashing: "d"))
            #expect(try await store.entry(for: CacheKey(hashing: "b"), now: now) == nil)
            for name in ["a", "c", "d"] {
                #expect(try await store.entry(for: CacheKey(hashing: name), now: now) != nil, "\(name)")
            }
            #expect(try await store.totalSize() == size * 3)
            // An entry larger than the whole store is not kept, and the old one goes.
            try await store.store(
                textEntry(String(repeating: "y", count: size * 4)), for: CacheKey(hashing: "a"))
            #expect(try await store.entry(for: CacheKey(hashing: "a"), now: now) == nil)
        }
    }

    @Test(arguments: Kind.allCases)
    func overItsCountTheLeastRecentlyReadGo(_ kind: Kind) async throws {
        try await Self.withStore(kind, countLimit: 2) { fixture in
            let store = fixture.store
            try await store.store(textEntry("a"), for: CacheKey(hashing: "a"))
            try await store.store(textEntry("b"), for: CacheKey(hashing: "b"))
            _ = try await store.entry(for: CacheKey(hashing: "a"), now: now)
            try await store.store(textEntry("c"), for: CacheKey(hashing: "c"))
            #expect(try await store.entry(for: CacheKey(hashing: "b"), now: now) == nil)
            #expect(try await store.entry(for: CacheKey(hashing: "a"), now: now) != nil)
            #expect(try await store.entry(for: CacheKey(hashing: "c"), now: now) != nil)
        }
    }

    /// Memory holds values, not bytes: nothing there can be damaged.
    @Test(arguments: [Kind.disk, .redis])
    func aDamagedEntryIsAMissAndIsRemoved(_ kind: Kind) async throws {
        try await Self.withStore(kind) { fixture in
            let store = fixture.store
            let key = CacheKey(hashing: "damaged")
            try await store.store(textEntry(String(repeating: "b", count: 500)), for: key)
            try await store.store(textEntry("kept"), for: CacheKey(hashing: "kept"))
            let damage = try #require(fixture.damage)
            try await damage(key)
            #expect(try await store.entry(for: key, now: now) == nil)
            #expect(try await store.totalSize() == textEntry("kept").size)
            #expect(try await store.entry(for: CacheKey(hashing: "kept"), now: now) == textEntry("kept"))
        }
    }

    /// Through the pipeline, with the store as the cache's only tier: a
    /// stale entry is revalidated with its validator, and the 304 refreshes it.
    @Test(arguments: Kind.allCases)
    func aRevalidationRefreshesTheStoredEntry(_ kind: Kind) async throws {
        try await Self.withStore(kind) { fixture in
            let clock = TestClock()
            let cache = ResponseCache(memory: nil, disk: fixture.store, clock: clock)
            let upstream = Upstream.versioned("v")
            let api = client(of: upstream, cache: cache, clock: clock)
            let profile = Endpoint<Profile>(.get("profiles/7"), on: .fleet).cache(.http)
            #expect(try await api.send(profile).name == "v-1")
            await cache.settle()
            #expect(try await api.response(profile).attempts == 0)
            clock.advance(by: .seconds(61))
            let revalidated = try await api.response(profile)
            #expect(revalidated.response?.cacheSource == .revalidated)
            #expect(revalidated.model.name == "v-1")
            #expect(upstream.requests.last?.headerFields[.ifNoneMatch] == "\"v1\"")
            await cache.settle()
            // Refreshed: fresh again for another 60 s, without the network.
            clock.advance(by: .seconds(59))
            #expect(try await api.response(profile).attempts == 0)
            #expect(upstream.requests.count == 2)
        }
    }

    // MARK: - Stores

    static func withStore(
        _ kind: Kind, sizeLimit: Int = 50 << 20, countLimit: Int = 10_000,
        _ body: (Fixture) async throws -> Void
    ) async throws {
        switch kind {
        case .memory:
            try await body(Fixture(store: MemoryStore(costLimit: sizeLimit, countLimit: countLimit)))
        case .disk:
            try await inTemporaryDirectory { directory in
                let store = try await DiskStore.open(
                    directory: directory, sizeLimit: sizeLimit, countLimit: countLimit, inlineLimit: 64)
                try await body(
                    Fixture(store: store) { _ in
                        // Cut the body file short: entries over 64 bytes live in
                        // files, and the test damages its only large one.
                        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                        let name = try #require(names.first { $0.hasSuffix(".body") })
                        let file = directory.appendingPathComponent(name)
                        let bytes = try Data(contentsOf: file)
                        try bytes.prefix(bytes.count / 2).write(to: file)
                    })
            }
        case .redis:
            if let shared = ProcessInfo.processInfo.environment["COURIER_REDIS_URL"] {
                // A server someone else runs (docker-compose's `redis`): a
                // namespace of this test's own, emptied afterwards.
                try await withSharedRedis(shared, sizeLimit: sizeLimit, countLimit: countLimit, body)
                return
            }
            try await withRedis { server in
                var configuration = redisConfiguration(server)
                configuration.sizeLimit = sizeLimit
                configuration.countLimit = countLimit
                let raw = try rawConnection(server)
                try await body(
                    Fixture(store: RedisStore(configuration), damage: flipping(on: raw, namespace: "tests")))
            }
        }
    }

    /// The Redis at `url` (`redis://host:port`).
    static func withSharedRedis(
        _ url: String, sizeLimit: Int, countLimit: Int, _ body: (Fixture) async throws -> Void
    ) async throws {
        let parts = url.replacingOccurrences(of: "redis://", with: "").split(separator: ":")
        let host = String(parts.first ?? "127.0.0.1")
        let port = parts.count > 1 ? Int(parts[1]) ?? 6379 : 6379
        let namespace = "conformance-\(UUID().uuidString)"
        let configuration = RedisStore.Configuration(
            endpoint: .tcp(host: host, port: port), namespace: namespace, sizeLimit: sizeLimit,
            countLimit: countLimit, connectTimeout: .seconds(600), commandTimeout: .seconds(600),
            reconnectDelay: .zero)
        let store = RedisStore(configuration)
        let raw = try RedisConnection(configuration.linkSettings)
        do {
            try await body(Fixture(store: store, damage: flipping(on: raw, namespace: namespace)))
            try await store.removeAll()
        } catch {
            try? await store.removeAll()
            throw error
        }
    }

    /// Flips one byte of a stored value behind the store's back.
    static func flipping(on raw: RedisConnection, namespace: String) -> (CacheKey) async throws -> Void {
        { key in
            let name = RedisKeys(namespace: namespace, version: 1).entry(key.digest)
            guard case .bulk(var value) = try raw.send("GET", name) else { return }
            value[value.count / 2] ^= 0xFF
            _ = try raw.command([Array("SET".utf8), Array(name.utf8), value])
        }
    }
}
