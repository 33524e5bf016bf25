import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// The memory tier: least recently used out first, within a cost and a
/// count, O(1), safe under concurrency.
struct MemoryTierTests {
    @Test func theLeastRecentlyUsedEntriesGoFirst() {
        var table = LRUTable<String, Int>(costLimit: 30, countLimit: 100)
        for key in ["a", "b", "c"] { table.insert(0, for: key, cost: 10) }
        _ = table.value(for: "a")  // a is now the most recent
        #expect(table.insert(0, for: "d", cost: 10) == ["b"])
        #expect(table.keysByRecency == ["d", "a", "c"])
        #expect(table.insert(0, for: "e", cost: 20) == ["c", "a"])
        #expect(table.keysByRecency == ["e", "d"])
        #expect(table.totalCost == 30)
    }

    @Test func theCountLimitHoldsToo() {
        var table = LRUTable<Int, Int>(costLimit: 1_000, countLimit: 3)
        for key in 0..<5 { table.insert(key, for: key, cost: 1) }
        #expect(table.keysByRecency == [4, 3, 2])
    }

    @Test func replacingAnEntryUpdatesItsCostAndRecency() {
        var table = LRUTable<String, Int>(costLimit: 100, countLimit: 100)
        table.insert(1, for: "a", cost: 10)
        table.insert(2, for: "b", cost: 10)
        table.insert(3, for: "a", cost: 50)
        #expect(table.totalCost == 60)
        #expect(table.keysByRecency == ["a", "b"])
        #expect(table.peek("a") == 3)
    }

    @Test func anEntryLargerThanTheLimitIsNotKept() {
        var table = LRUTable<String, Int>(costLimit: 10, countLimit: 10)
        table.insert(1, for: "small", cost: 5)
        #expect(table.insert(2, for: "huge", cost: 11).isEmpty)
        #expect(table.keysByRecency == ["small"])
    }

    @Test func removedSlotsAreReused() {
        var table = LRUTable<Int, Int>(costLimit: 1_000, countLimit: 1_000)
        for round in 0..<100 {
            table.insert(round, for: round, cost: 1)
            table.removeValue(for: round)
        }
        #expect(table.count == 0)
        #expect(table.totalCost == 0)
        table.insert(1, for: 1, cost: 1)
        #expect(table.keysByRecency == [1])
    }

    @Test func theStoreDropsExpiredEntriesOnTheClock() {
        let clock = TestClock()
        let store = MemoryStore()
        let key = CacheKey(hashing: "k")
        store.put(entry("x", at: clock.date, expires: clock.date.addingTimeInterval(5)), for: key)
        #expect(store.cachedEntry(for: key, now: clock.date) != nil)
        clock.advance(by: .seconds(5))
        #expect(store.cachedEntry(for: key, now: clock.date) == nil)
        #expect(store.count == 0)
    }

    @Test func theStoreBoundsItsBytes() async throws {
        let store = MemoryStore(costLimit: 4_096)
        for index in 0..<10 {
            store.put(entry(String(repeating: "x", count: 1_000)), for: CacheKey(hashing: "\(index)"))
        }
        #expect(try await store.totalSize() <= 4_096)
        #expect(store.keysByRecency.first == CacheKey(hashing: "9"))
        #expect(store.cachedEntry(for: CacheKey(hashing: "0"), now: Date()) == nil)
    }

    @Test func concurrentReadersAndWritersSeeWholeEntries() async {
        let store = MemoryStore(costLimit: 64 << 10, countLimit: 50)
        await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var seen = 0
                    for round in 0..<2_000 {
                        let key = CacheKey(hashing: "\((round * 7 + worker) % 80)")
                        if round % 3 == 0 {
                            store.put(entry("\(key.digest)"), for: key)
                        } else if let found = store.cachedEntry(for: key, now: Date()) {
                            // An entry is only ever the one written for its key.
                            #expect(found.body == Array(key.digest.utf8))
                            seen += 1
                        }
                    }
                    return seen
                }
            }
            var total = 0
            for await seen in group { total += seen }
            #expect(total > 0)
        }
        #expect(store.count <= 50)
    }

    /// Removing by tag visits the tag's entries through an index that
    /// outlives evictions and retagging, and is rebuilt when it outgrows
    /// the entries: whatever churned, exactly the live tagged entries go.
    @Test func removingByTagFindsExactlyTheLiveTaggedEntries() {
        let store = MemoryStore(countLimit: 10)
        let (odd, even) = (CacheTag("odd"), CacheTag("even"))
        for number in 0..<3_000 {
            var value = entry("\(number)")
            value.tags = [number.isMultiple(of: 2) ? even : odd]
            store.put(value, for: CacheKey(hashing: "\(number % 40)"))
        }
        // The last ten keys written hold 2990…2999: five odd, five even.
        #expect(store.count == 10)
        #expect(store.remove(tagged: odd) == 5)
        #expect(store.count == 5)
        #expect(store.remove(tagged: odd) == 0)
        #expect(store.remove(tagged: even) == 5)
        #expect(store.count == 0)
    }
}
