import CourierCodable
@_spi(Locking) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// A store that fails never fails a call: a failed read is a miss, a failed
/// write is not written, and both are reported.
struct StoreFailureTests {
    /// A second tier whose every operation fails, as a full or unreadable disk would.
    struct BrokenStore: CacheStore {
        let failure = CacheStoreError(.io, "the disk is full")
        func entry(for key: CacheKey, now: Date) async throws(CacheStoreError) -> CacheEntry? {
            throw failure
        }
        func store(_ entry: CacheEntry, for key: CacheKey) async throws(CacheStoreError) { throw failure }
        func removeEntry(for key: CacheKey) async throws(CacheStoreError) { throw failure }
        func removeAll() async throws(CacheStoreError) { throw failure }
        func removeExpired(now: Date) async throws(CacheStoreError) -> Int { throw failure }
        func totalSize() async throws(CacheStoreError) -> Int { throw failure }
    }

    @Test func aFailingStoreIsAMissAndIsReported() async throws {
        let reported = Locked<[CacheStoreError.Code]>([])
        let cache = ResponseCache(memory: nil, disk: BrokenStore()) { error in
            reported.withLock { $0.append(error.code) }
        }
        let origin = Origin.versions()
        let client = makeClient(origin, cache: cache)
        let endpoint = Endpoint<User>(.get("users/7"), on: .api).cache(.cancelNetwork)
        #expect(try await client.send(endpoint).name == "v1")
        await cache.settle()
        #expect(try await client.send(endpoint).name == "v2")
        await cache.settle()
        // Two reads and two writes failed; both calls were answered by the network.
        #expect(reported.withLock { $0 } == [.io, .io, .io, .io])
        #expect(cache.statistics.storeFailures == 4)
        #expect(origin.count == 2)
        await #expect(throws: CacheStoreError.self) { try await cache.removeAll() }
    }
}
