public import CourierCache
@_spi(Locking) import CourierCore
import CourierRedis
public import Foundation
import Synchronization

/// A ``/CourierCache/CacheStore`` on Redis, shared by every process of a
/// fleet: what one instance stored, revalidated or removed, every other sees.
///
/// ```swift
/// let redis = RedisStore(.init(endpoint: .tcp(host: "cache.internal"), namespace: "shop-api"))
/// let cache = ResponseCache(memoryAndShared: redis)
/// ```
///
/// - **Semantics** are the disk tier's: an entry past its own expiry or
///   damaged is a miss and is removed; over ``Configuration/sizeLimit`` or
///   ``Configuration/countLimit`` the least recently read go first. An entry
///   with an expiry is also given that lifetime as a Redis TTL.
/// - **Keys** are the request's SHA-256 digest under the namespace and
///   version (`courier:{shop-api:v1}:e:<digest>`): no URL, query or
///   credential reaches Redis.
/// - **Threads.** hiredis is blocking; every command runs on the store's own
///   thread, never on the concurrency pool. The commands of concurrent calls
///   go out together in one write (a pipeline), and at most
///   ``Configuration/maxPendingOperations`` wait.
/// - **Outages** are misses, never failed calls: the first failure logs one
///   warning and counts `courier_cache_shared_failures`; while the server is
///   down calls fail at once, and the store reconnects by itself after
///   ``Configuration/reconnectDelay``.
public final class RedisStore: CacheStore {
    /// How the store connects and what it keeps.
    public let configuration: Configuration
    private let worker: RedisWorker
    private let keys: RedisKeys
    private let damaged = Atomic(0)
    /// Entries read since the last write, oldest first: their recency goes
    /// out with the next write (before its evictions), or once this many pile up.
    private let reads = Locked<[String]>([])
    static let readsHeldBack = 512

    /// Creates a store and its thread; it connects on first use, so an app
    /// starts even while Redis is down (its calls are then misses).
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        keys = RedisKeys(namespace: configuration.namespace, version: configuration.version)
        worker = RedisWorker(
            configuration.linkSettings, health: RedisHealth(configuration, namespace: keys.namespace))
    }

    deinit { worker.stop() }

    /// How many damaged entries this store found and removed.
    public var damagedEntriesRemoved: Int { damaged.load(ordering: .relaxed) }

    // MARK: - CacheStore

    /// The entry under `key`, unless missing, expired by `now` (removed) or damaged (removed).
    public func entry(for key: CacheKey, now: Date) async throws(CacheStoreError) -> CacheEntry? {
        let digest = key.digest
        let reply = try await perform(.command([Array("GET".utf8), Array(keys.entry(digest).utf8)]))
        guard case .bulk(let value) = reply else { return nil }
        let held = reads.withLock { reads in
            reads.append(digest)
            return reads.count
        }
        if held >= Self.readsHeldBack { postReads() }
        guard let entry = RedisEntryCoding.decode(value) else {
            damaged.add(1, ordering: .relaxed)
            try await removeEntry(for: key)
            return nil
        }
        if entry.isExpired(at: now) {
            try await removeEntry(for: key)
            return nil
        }
        return entry
    }

    /// Stores `entry` under `key`, then evicts the least recently read while
    /// over a limit. An entry larger than ``Configuration/sizeLimit`` is not
    /// kept (and the old one is removed).
    public func store(_ entry: CacheEntry, for key: CacheKey) async throws(CacheStoreError) {
        guard entry.size <= configuration.sizeLimit else { return try await removeEntry(for: key) }
        postReads()
        let digest = key.digest
        // The entry's own lifetime, from when it was stored: the store's
        // clock and the cache's may differ (a test clock), their spans agree.
        let ttl = entry.expiresAt.map {
            max(1, Int(($0.timeIntervalSince(entry.storedAt) * 1000).rounded(.up)))
        }
        let arguments: [String] = [
            String(ttl ?? 0), digest, String(entry.size), String(configuration.sizeLimit),
            String(configuration.countLimit), keys.entryPrefix,
            entry.expiresAt.map { String($0.timeIntervalSince1970) } ?? "",
        ]
        _ = try await perform(
            .script(
                source: RedisScripts.store,
                keys: [keys.entry(digest), keys.sizes, keys.recency, keys.total, keys.expiries, keys.clock]
                    + entry.tags.map { keys.tag($0.digest) },
                arguments: [RedisEntryCoding.encode(entry)] + arguments.map { Array($0.utf8) }))
    }

    /// Removes the entry under `key`.
    public func removeEntry(for key: CacheKey) async throws(CacheStoreError) {
        let digest = key.digest
        _ = try await perform(
            .script(
                source: RedisScripts.remove,
                keys: [keys.entry(digest), keys.sizes, keys.recency, keys.total, keys.expiries],
                arguments: [Array(digest.utf8)]))
    }

    /// Removes the entries tagged `tag`. - Returns: How many.
    @discardableResult
    public func removeEntries(tagged tag: CacheTag) async throws(CacheStoreError) -> Int {
        let reply = try await perform(
            .script(
                source: RedisScripts.removeTagged,
                keys: [keys.sizes, keys.recency, keys.total, keys.expiries, keys.tag(tag.digest)],
                arguments: [Array(keys.entryPrefix.utf8)]))
        return Int(reply.integer ?? 0)
    }

    /// Removes every entry of the namespace and version (other apps' stay).
    public func removeAll() async throws(CacheStoreError) {
        var cursor = "0"
        repeat {
            let reply = try await command(["SCAN", cursor, "MATCH", keys.pattern, "COUNT", "500"])
            guard case .array(let parts) = reply, parts.count == 2, let next = parts[0].bytes,
                case .array(let found) = parts[1]
            else { throw CacheStoreError(.database, "SCAN answered \(reply)") }
            let names = found.compactMap(\.bytes)
            if !names.isEmpty { _ = try await perform(.command([Array("UNLINK".utf8)] + names)) }
            cursor = String(decoding: next, as: UTF8.self)
        } while cursor != "0"
    }

    /// Removes the entries expired by `now`, and forgets those the server
    /// evicted itself. - Returns: How many.
    @discardableResult
    public func removeExpired(now: Date) async throws(CacheStoreError) -> Int {
        let reply = try await perform(
            .script(
                source: RedisScripts.removeExpired,
                keys: [keys.sizes, keys.recency, keys.total, keys.expiries],
                arguments: [Array(keys.entryPrefix.utf8), Array(String(now.timeIntervalSince1970).utf8)]))
        return Int(reply.integer ?? 0)
    }

    /// The bytes the namespace's entries take (``/CourierCache/CacheEntry/size`` summed).
    public func totalSize() async throws(CacheStoreError) -> Int {
        try await number(command(["GET", keys.total]))
    }

    /// How many entries the namespace holds.
    public func count() async throws(CacheStoreError) -> Int {
        try await number(command(["ZCARD", keys.recency]))
    }

    /// Connects if need be and checks the server answers.
    /// - Throws: ``/CourierCache/CacheStoreError`` saying why it does not.
    public func ping() async throws(CacheStoreError) {
        _ = try await command(["PING"])
    }

    /// Queues the held-back reads' recency ahead of whatever comes next.
    private func postReads() {
        let digests = reads.withLock { reads in
            defer { reads.removeAll(keepingCapacity: true) }
            return reads
        }
        guard !digests.isEmpty else { return }
        worker.post(
            .script(
                source: RedisScripts.touch, keys: [keys.recency, keys.clock],
                arguments: digests.map { Array($0.utf8) }))
    }

    /// Runs `request` on the store's thread; a failure in the cache's words.
    private func perform(_ request: RedisWorker.Request) async throws(CacheStoreError) -> RedisReply {
        do {
            return try await worker.perform(request)
        } catch {
            throw CacheStoreError(error)
        }
    }

    private func command(_ words: [String]) async throws(CacheStoreError) -> RedisReply {
        try await perform(.command(words.map { Array($0.utf8) }))
    }

    private func number(_ reply: RedisReply) throws(CacheStoreError) -> Int {
        if reply == .null { return 0 }
        guard let value = reply.integer else {
            throw CacheStoreError(.database, "expected a number, got \(reply)")
        }
        return Int(value)
    }
}

extension CacheStoreError.Code {
    /// The shared store's server cannot be reached (a call made while it is
    /// down, or the connection lost).
    public static let unavailable = CacheStoreError.Code("unavailable")
    /// The shared store's server did not answer within the command timeout.
    public static let timeout = CacheStoreError.Code("timeout")
    /// Too many operations already wait for the store.
    public static let busy = CacheStoreError.Code("busy")
}

extension CacheStoreError {
    /// A Redis failure as the cache's store says it.
    init(_ error: RedisError) {
        let code: Code =
            switch error.code {
            case .unavailable: .unavailable
            case .timeout: .timeout
            case .busy: .busy
            case .database: .database
            case .closed: .closed
            }
        self.init(code, error.message, underlying: error.underlying)
    }
}

/// The namespace's key names.
struct RedisKeys: Sendable {
    let namespace: String
    let base: String

    init(namespace: String, version: Int) {
        let cleaned = String(namespace.map { $0 == "{" || $0 == "}" ? "_" : $0 })
        self.namespace = cleaned
        base = "courier:{\(cleaned):v\(version)}"
    }

    var entryPrefix: String { base + ":e:" }
    func entry(_ digest: String) -> String { entryPrefix + digest }
    var sizes: String { base + ":sizes" }
    var recency: String { base + ":recency" }
    var total: String { base + ":total" }
    var expiries: String { base + ":expiries" }
    var clock: String { base + ":clock" }
    /// The set of the entries tagged with the tag whose digest is `digest`.
    func tag(_ digest: String) -> String { base + ":t:" + digest }
    /// Every key of the namespace and version, for `SCAN MATCH` (glob characters escaped).
    var pattern: String {
        var escaped = ""
        for character in base {
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + ":*"
    }
}
