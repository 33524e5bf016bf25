@_spi(Locking) public import CourierCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The memory tier: entries in process memory, least recently used first
/// out, within a byte limit (``CacheEntry/size``) and a count limit.
///
/// Every operation is O(1) (removing expired entries walks them all) and
/// takes one lock for a few hundred nanoseconds: it never suspends, so it
/// is safe — and cheap — to call from the concurrency pool.
///
/// ```swift
/// let memory = MemoryStore(costLimit: 32 << 20)   // 32 MiB
/// ```
public final class MemoryStore: CacheStore {
    /// An entry and, with a ``timeToLive``, when this tier lets go of it.
    private struct Held {
        var entry: CacheEntry
        var heldUntil: Date?
    }

    /// The entries, and the keys of each tag's entries (``remove(tagged:)``
    /// then visits those, not every entry). The index may still name keys
    /// since evicted or retagged — each is checked before it is removed —
    /// and is rebuilt from the entries when it outgrows them fourfold.
    private struct Storage {
        var table: LRUTable<CacheKey, Held>
        var tagged: [CacheTag: Set<CacheKey>] = [:]
        var indexed = 0

        mutating func index(_ entry: CacheEntry, under key: CacheKey) {
            add(entry.tags, key)
            guard indexed > 4 * max(table.count, 256) else { return }
            tagged = [:]
            indexed = 0
            for key in table.keysByRecency {
                if let held = table.peek(key) { add(held.entry.tags, key) }
            }
        }

        private mutating func add(_ tags: Set<CacheTag>, _ key: CacheKey) {
            for tag in tags where tagged[tag, default: []].insert(key).inserted { indexed += 1 }
        }
    }

    private let storage: Locked<Storage>
    /// How long an entry stays in this tier, whatever its own expiry; `nil`
    /// for as long as the entry lives. In front of a store that other
    /// processes write (``ResponseCache/init(memoryAndShared:memoryTimeToLive:memoryCostLimit:defaults:sharing:clock:onStoreError:logger:onEvent:)``),
    /// it bounds how long this process can serve an entry another one has
    /// since refreshed or removed.
    public let timeToLive: Duration?
    private let clock: any CourierClock

    /// Creates an empty store.
    /// - Parameters:
    ///   - costLimit: The most bytes its entries may take: 16 MiB by default.
    ///     An entry larger than this is not kept.
    ///   - countLimit: The most entries: 10,000 by default.
    ///   - timeToLive: How long an entry stays here at most; `nil` (the
    ///     default) for its whole life.
    ///   - clock: Whose date `timeToLive` counts from: the cache's (a
    ///     `TestClock` in tests).
    public init(
        costLimit: Int = 16 << 20, countLimit: Int = 10_000, timeToLive: Duration? = nil,
        clock: any CourierClock = SystemClock()
    ) {
        storage = Locked(
            Storage(table: LRUTable(costLimit: max(0, costLimit), countLimit: max(0, countLimit))))
        self.timeToLive = timeToLive
        self.clock = clock
    }

    /// The most bytes its entries may take.
    public var costLimit: Int { storage.withLock { $0.table.costLimit } }
    /// How many entries it holds now.
    public var count: Int { storage.withLock { $0.table.count } }

    /// The entry under `key`, now the most recently used; an expired one (or
    /// one held past ``timeToLive``) is removed and not returned. Never suspends.
    public func cachedEntry(for key: CacheKey, now: Date) -> CacheEntry? {
        storage.withLock { storage in
            guard let held = storage.table.value(for: key) else { return nil }
            if held.entry.isExpired(at: now) || held.heldUntil.map({ $0 <= now }) == true {
                storage.table.removeValue(for: key)
                return nil
            }
            return held.entry
        }
    }

    /// Keeps `entry` under `key`, evicting the least recently used entries
    /// as needed. Never suspends.
    public func put(_ entry: CacheEntry, for key: CacheKey) {
        let heldUntil = timeToLive.map { clock.date.addingTimeInterval($0.seconds) }
        storage.withLock { storage in
            if entry.size > storage.table.costLimit {
                storage.table.removeValue(for: key)  // the old entry is out of date either way
            } else {
                storage.table.insert(Held(entry: entry, heldUntil: heldUntil), for: key, cost: entry.size)
                storage.index(entry, under: key)
            }
        }
    }

    /// The keys from the most to the least recently used (for tests and diagnostics).
    public var keysByRecency: [CacheKey] { storage.withLock { $0.table.keysByRecency } }

    // MARK: - CacheStore

    /// ``cachedEntry(for:now:)``.
    public func entry(for key: CacheKey, now: Date) async throws(CacheStoreError) -> CacheEntry? {
        cachedEntry(for: key, now: now)
    }

    /// ``put(_:for:)``.
    public func store(_ entry: CacheEntry, for key: CacheKey) async throws(CacheStoreError) {
        put(entry, for: key)
    }

    /// Removes the entry under `key`.
    public func removeEntry(for key: CacheKey) async throws(CacheStoreError) {
        remove(key)
    }

    /// Removes every entry.
    public func removeAll() async throws(CacheStoreError) {
        storage.withLock { storage in
            storage.table.removeAll()
            storage.tagged = [:]
            storage.indexed = 0
        }
    }

    /// Removes the entries expired by `now`.
    @discardableResult
    public func removeExpired(now: Date) async throws(CacheStoreError) -> Int {
        storage.withLock { storage in
            storage.table.removeAll { $0.entry.isExpired(at: now) || $0.heldUntil.map { $0 <= now } == true }
        }
    }

    /// Removes the entries tagged `tag`: a visit to each of them, through
    /// an index of tags.
    @discardableResult
    public func removeEntries(tagged tag: CacheTag) async throws(CacheStoreError) -> Int {
        remove(tagged: tag)
    }

    /// Removes the entries tagged `tag`. Never suspends.
    @discardableResult
    public func remove(tagged tag: CacheTag) -> Int {
        storage.withLock { storage in
            guard let keys = storage.tagged.removeValue(forKey: tag) else { return 0 }
            storage.indexed -= keys.count
            var removed = 0
            for key in keys where storage.table.peek(key)?.entry.tags.contains(tag) == true {
                storage.table.removeValue(for: key)
                removed += 1
            }
            return removed
        }
    }

    /// The bytes the entries take.
    public func totalSize() async throws(CacheStoreError) -> Int {
        storage.withLock { $0.table.totalCost }
    }

    /// Removes the entry under `key`. Never suspends.
    public func remove(_ key: CacheKey) {
        storage.withLock { _ = $0.table.removeValue(for: key) }
    }
}
