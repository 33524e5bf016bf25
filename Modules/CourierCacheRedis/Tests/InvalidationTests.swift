import CourierCodable
import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache
@testable import CourierCacheRedis

/// Removing stored responses by what they answered — one endpoint, a path
/// and everything under it, a policy's tag — and RFC 9111 §4.4's
/// invalidation after an unsafe request, each over the memory tier, the
/// disk tier and Redis as the cache's only tier.
struct InvalidationTests {
    typealias Kind = StoreConformanceTests.Kind

    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(arguments: Kind.allCases)
    func aStoreRemovesTheEntriesOfATagAndNoOthers(_ kind: Kind) async throws {
        try await StoreConformanceTests.withStore(kind) { fixture in
            let store = fixture.store
            let (red, blue) = (CacheTag("red"), CacheTag("blue"))
            for (name, tags) in [("a", [red]), ("b", [red, blue]), ("c", [blue]), ("d", [])] {
                var entry = textEntry(name)
                entry.tags = Set(tags)
                try await store.store(entry, for: CacheKey(hashing: name))
            }
            var read = try #require(try await store.entry(for: CacheKey(hashing: "b"), now: now))
            #expect(read.tags == [red, blue])
            #expect(try await store.removeEntries(tagged: red) == 2)
            for (name, kept) in [("a", false), ("b", false), ("c", true), ("d", true)] {
                #expect(
                    (try await store.entry(for: CacheKey(hashing: name), now: now) != nil) == kept, "\(name)")
            }
            read = try #require(try await store.entry(for: CacheKey(hashing: "c"), now: now))
            #expect(try await store.totalSize() == read.size + textEntry("d").size)
            #expect(try await store.removeEntries(tagged: red) == 0)
        }
    }

    /// A client whose cache has `store` as its only tier, and the upstream.
    static func caching(_ store: any CacheStore) -> (APIClient, ResponseCache, Upstream) {
        let clock = TestClock()
        let cache = ResponseCache(memory: nil, disk: store, clock: clock)
        let upstream = Upstream { head, _ in
            if head.method != .get { return .status(204) }
            return .json(
                #"{"id": 7, "name": "\#(head.path ?? "")"}"#, headers: [.cacheControl: "max-age=600"])
        }
        return (client(of: upstream, cache: cache, clock: clock), cache, upstream)
    }

    static func profile(_ id: Int, tags: Set<String> = []) -> Endpoint<Profile> {
        Endpoint<Profile>(.get("profiles/\(id)"), on: .fleet).cache(.http) { $0.tags = tags }
    }

    /// Whether `endpoint` is answered from the cache now.
    static func isStored(_ endpoint: Endpoint<Profile>, _ api: APIClient) async throws -> Bool {
        try await api.response(endpoint).attempts == 0
    }

    @Test(arguments: Kind.allCases)
    func anEndpointAPathOrATagIsRemovedFromEveryTier(_ kind: Kind) async throws {
        try await StoreConformanceTests.withStore(kind) { fixture in
            let (api, cache, _) = Self.caching(fixture.store)
            let orders = Endpoint<Profile>(.get("orders/1"), on: .fleet).cache(.http) { $0.tags = ["sales"] }
            let endpoints = [Self.profile(7, tags: ["people"]), Self.profile(8), Self.profile(9), orders]
            for endpoint in endpoints { _ = try await api.send(endpoint) }
            await cache.settle()
            for endpoint in endpoints { #expect(try await Self.isStored(endpoint, api)) }

            #expect(try await cache.remove(Self.profile(7)) == 1)
            #expect(try await !Self.isStored(Self.profile(7), api))
            #expect(try await Self.isStored(Self.profile(8), api))
            await cache.settle()

            // Everything under /v1/profiles (7 again, 8, 9), not /v1/orders.
            #expect(try await cache.removeAll(under: "https://API.example.com:443/v1/profiles/") == 3)
            for id in [7, 8, 9] { #expect(try await !Self.isStored(Self.profile(id), api)) }
            #expect(try await Self.isStored(orders, api))
            await cache.settle()

            #expect(try await cache.removeAll(tagged: "sales") == 1)
            #expect(try await !Self.isStored(orders, api))
        }
    }

    /// RFC 9111 §4.4: after a successful unsafe request — from an endpoint
    /// with no cache policy — nothing stored for its target URI is used
    /// again, whatever key it was stored under (another `Accept`); the URIs
    /// in `Location` and `Content-Location` go too on the same origin, never
    /// on another.
    @Test(arguments: Kind.allCases)
    func anUnsafeRequestInvalidatesItsTargetURIEveryVariant(_ kind: Kind) async throws {
        try await StoreConformanceTests.withStore(kind) { fixture in
            let clock = TestClock()
            let cache = ResponseCache(memory: nil, disk: fixture.store, clock: clock)
            let upstream = Upstream { head, _ in
                guard head.method == .get else {
                    return .status(
                        201,
                        headers: [
                            .location: "/v1/profiles/8",
                            .contentLocation: "https://elsewhere.example/v1/profiles/9",
                        ])
                }
                return .json(#"{"id": 7, "name": "p"}"#, headers: [.cacheControl: "max-age=600"])
            }
            let api = client(of: upstream, cache: cache, clock: clock)
            let asJSON = Self.profile(7).adding(headers: [.accept: "application/json"])
            let asAnything = Self.profile(7).adding(headers: [.accept: "*/*"])
            let stored = [asJSON, asAnything, Self.profile(8), Self.profile(9)]
            for endpoint in stored { _ = try await api.send(endpoint) }
            await cache.settle()
            for endpoint in stored { #expect(try await Self.isStored(endpoint, api)) }

            let update = Endpoint<RawResponse>(.put("profiles/7"), on: .fleet)
            _ = try await api.send(update)
            await cache.settle()
            #expect(try await !Self.isStored(asJSON, api))
            #expect(try await !Self.isStored(asAnything, api))
            #expect(try await !Self.isStored(Self.profile(8), api))
            #expect(try await Self.isStored(Self.profile(9), api))
        }
    }
}
