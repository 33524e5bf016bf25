import CourierCache
@_spi(Locking) import CourierCore
import Foundation
import Logging
import Metrics
import Synchronization

/// A ``CourierCache/CacheStore`` on Redis, shared by every process of a
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
///   thread (the actor's executor), never on the concurrency pool, and at
///   most ``Configuration/maxPendingOperations`` wait for it.
/// - **Outages** are misses, never failed calls: the first failure logs one
///   warning and counts `courier_cache_shared_failures`; while the server is
///   down calls fail at once, and the store reconnects by itself after
///   ``Configuration/reconnectDelay``.
public actor RedisStore: CacheStore {
    /// How the store connects and what it keeps.
    public nonisolated let configuration: Configuration
    private nonisolated let executor: StoreExecutor
    private nonisolated let pending = Atomic(0)
    private nonisolated let keys: RedisKeys
    private nonisolated let failures: Counter
    private nonisolated let upGauge: Gauge
    private var connection: RedisConnection?
    /// Script digests from `SCRIPT LOAD`, by script.
    private var loaded: [String: [UInt8]] = [:]
    /// When the server is down: the earliest the next connection attempt.
    private var retryAt: ContinuousClock.Instant?
    /// How many damaged entries this store found and removed.
    public private(set) var damagedEntriesRemoved = 0

    /// Runs the actor's jobs on the store's own thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates a store; it connects on first use, so an app starts even
    /// while Redis is down (its calls are then misses).
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        self.keys = RedisKeys(namespace: configuration.namespace, version: configuration.version)
        self.executor = StoreExecutor(name: "courier-redis")
        let dimensions = [("namespace", keys.namespace)]
        self.failures = Counter(
            label: "courier_cache_shared_failures", dimensions: dimensions,
            factory: configuration.metricsFactory)
        self.upGauge = Gauge(
            label: "courier_cache_shared_up", dimensions: dimensions, factory: configuration.metricsFactory)
    }

    deinit { executor.stop() }

    // MARK: - CacheStore

    /// The entry under `key`, unless missing, expired by `now` (removed) or damaged (removed).
    public nonisolated func entry(for key: CacheKey, now: Date) async throws(CacheStoreError) -> CacheEntry? {
        try admit()
        defer { pending.subtract(1, ordering: .relaxed) }
        return try await read(key, now: now)
    }

    /// Stores `entry` under `key`, then evicts the least recently read while
    /// over a limit. An entry larger than ``Configuration/sizeLimit`` is not
    /// kept (and the old one is removed).
    public nonisolated func store(_ entry: CacheEntry, for key: CacheKey) async throws(CacheStoreError) {
        try admit()
        defer { pending.subtract(1, ordering: .relaxed) }
        try await write(entry, for: key)
    }

    /// Removes the entry under `key`.
    public nonisolated func removeEntry(for key: CacheKey) async throws(CacheStoreError) {
        try admit()
        defer { pending.subtract(1, ordering: .relaxed) }
        try await remove(key)
    }

    /// Removes every entry of the namespace and version (other apps' stay).
    public nonisolated func removeAll() async throws(CacheStoreError) {
        try admit()
        defer { pending.subtract(1, ordering: .relaxed) }
        try await clear()
    }

    /// Removes the entries expired by `now`, and forgets those the server
    /// evicted itself. - Returns: How many.
    @discardableResult
    public nonisolated func removeExpired(now: Date) async throws(CacheStoreError) -> Int {
        try admit()
        defer { pending.subtract(1, ordering: .relaxed) }
        return try await sweep(now: now)
    }

    /// The bytes the namespace's entries take (``CourierCache/CacheEntry/size`` summed).
    public nonisolated func totalSize() async throws(CacheStoreError) -> Int {
        try admit()
        defer { pending.subtract(1, ordering: .relaxed) }
        return try await number([Array("GET".utf8), Array(keys.total.utf8)])
    }

    /// How many entries the namespace holds.
    public nonisolated func count() async throws(CacheStoreError) -> Int {
        try admit()
        defer { pending.subtract(1, ordering: .relaxed) }
        return try await number([Array("ZCARD".utf8), Array(keys.recency.utf8)])
    }

    /// Connects if need be and checks the server answers.
    /// - Throws: ``CourierCache/CacheStoreError`` saying why it does not.
    public func ping() throws(CacheStoreError) {
        _ = try run(["PING"])
    }

    // MARK: - On the store's thread

    private nonisolated func admit() throws(CacheStoreError) {
        let waiting = pending.add(1, ordering: .relaxed).newValue
        guard waiting <= configuration.maxPendingOperations else {
            pending.subtract(1, ordering: .relaxed)
            throw CacheStoreError(
                .busy, "\(configuration.maxPendingOperations) operations already wait for Redis")
        }
    }

    private func read(_ key: CacheKey, now: Date) throws(CacheStoreError) -> CacheEntry? {
        let digest = key.digest
        let reply = try script(
            RedisScripts.read, keys: [keys.entry(digest), keys.recency, keys.clock], [Array(digest.utf8)])
        guard case .bulk(let value) = reply else { return nil }
        guard let entry = RedisEntryCoding.decode(value) else {
            damagedEntriesRemoved += 1
            try remove(key)
            return nil
        }
        if entry.isExpired(at: now) {
            try remove(key)
            return nil
        }
        return entry
    }

    private func write(_ entry: CacheEntry, for key: CacheKey) throws(CacheStoreError) {
        guard entry.size <= configuration.sizeLimit else { return try remove(key) }
        let digest = key.digest
        // The entry's own lifetime, from when it was stored: the store's
        // clock and the cache's may differ (a test clock), their spans agree.
        let ttl = entry.expiresAt.map {
            max(1, Int(($0.timeIntervalSince(entry.storedAt) * 1000).rounded(.up)))
        }
        _ = try script(
            RedisScripts.store,
            keys: [keys.entry(digest), keys.sizes, keys.recency, keys.total, keys.expiries, keys.clock],
            [
                RedisEntryCoding.encode(entry), Array(String(ttl ?? 0).utf8), Array(digest.utf8),
                Array(String(entry.size).utf8), Array(String(configuration.sizeLimit).utf8),
                Array(String(configuration.countLimit).utf8), Array(keys.entryPrefix.utf8),
                Array((entry.expiresAt.map { String($0.timeIntervalSince1970) } ?? "").utf8),
            ])
    }

    private func remove(_ key: CacheKey) throws(CacheStoreError) {
        let digest = key.digest
        _ = try script(
            RedisScripts.remove,
            keys: [keys.entry(digest), keys.sizes, keys.recency, keys.total, keys.expiries],
            [Array(digest.utf8)])
    }

    private func sweep(now: Date) throws(CacheStoreError) -> Int {
        let reply = try script(
            RedisScripts.removeExpired, keys: [keys.sizes, keys.recency, keys.total, keys.expiries],
            [Array(String(now.timeIntervalSince1970).utf8), Array(keys.entryPrefix.utf8)])
        return Int(reply.integer ?? 0)
    }

    private func clear() throws(CacheStoreError) {
        var cursor = "0"
        repeat {
            let reply = try run(["SCAN", cursor, "MATCH", keys.pattern, "COUNT", "500"])
            guard case .array(let parts) = reply, parts.count == 2, let next = parts[0].bytes,
                case .array(let found) = parts[1]
            else { throw CacheStoreError(.database, "SCAN answered \(reply)") }
            let names = found.compactMap(\.bytes)
            if !names.isEmpty { _ = try run(bytes: [Array("UNLINK".utf8)] + names) }
            cursor = String(decoding: next, as: UTF8.self)
        } while cursor != "0"
    }

    private func number(_ arguments: [[UInt8]]) throws(CacheStoreError) -> Int {
        let reply = try run(bytes: arguments)
        if reply == .null { return 0 }
        guard let value = reply.integer else {
            throw CacheStoreError(.database, "expected a number, got \(reply)")
        }
        return Int(value)
    }

    /// Runs a script by its digest, loading it on first use and again when
    /// the server has forgotten it (a restart, `SCRIPT FLUSH`).
    private func script(_ source: String, keys: [String], _ arguments: [[UInt8]]) throws(CacheStoreError)
        -> RedisReply
    {
        for attempt in 0..<2 {
            let digest: [UInt8]
            if let known = loaded[source], attempt == 0 {
                digest = known
            } else {
                let reply = try run(["SCRIPT", "LOAD", source])
                guard let bytes = reply.bytes else {
                    throw CacheStoreError(.database, "SCRIPT LOAD answered \(reply)")
                }
                loaded[source] = bytes
                digest = bytes
            }
            let call =
                [Array("EVALSHA".utf8), digest, Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) }
                + arguments
            let reply = try run(bytes: call, errorRepliesThrow: false)
            if case .error(let message) = reply {
                if message.hasPrefix("NOSCRIPT"), attempt == 0 { continue }
                throw CacheStoreError(.database, "Redis refused a script: \(message)")
            }
            return reply
        }
        throw CacheStoreError(.database, "Redis did not keep the script")
    }

    private func run(_ arguments: [String]) throws(CacheStoreError) -> RedisReply {
        try run(bytes: arguments.map { Array($0.utf8) })
    }

    /// One command on the connection, connecting first if need be; a lost
    /// connection marks the server down.
    private func run(bytes arguments: [[UInt8]], errorRepliesThrow: Bool = true) throws(CacheStoreError)
        -> RedisReply
    {
        let connection = try connected()
        let reply: RedisReply
        do {
            reply = try connection.command(arguments)
        } catch {
            self.connection = nil
            loaded = [:]
            throw markDown(error)
        }
        if errorRepliesThrow, case .error(let message) = reply {
            throw CacheStoreError(.database, "Redis answered an error: \(message)")
        }
        return reply
    }

    private func connected() throws(CacheStoreError) -> RedisConnection {
        if let connection { return connection }
        if let retryAt, ContinuousClock.now < retryAt {
            throw CacheStoreError(.unavailable, "Redis at \(configuration.endpoint) is down; retrying later")
        }
        do {
            let made = try RedisConnection(configuration)
            connection = made
            if retryAt != nil {
                retryAt = nil
                configuration.logger.notice(
                    "the shared cache is back", metadata: ["endpoint": "\(configuration.endpoint)"])
            }
            upGauge.record(1)
            return made
        } catch {
            throw markDown(error)
        }
    }

    /// Notes a failure: one warning when the server goes down, a count every time.
    private func markDown(_ error: RedisConnectionError) -> CacheStoreError {
        failures.increment()
        if retryAt == nil {
            configuration.logger.warning(
                "the shared cache is unavailable; serving from memory until it is back",
                metadata: ["endpoint": "\(configuration.endpoint)", "reason": "\(error.description)"])
            upGauge.record(0)
        }
        retryAt = ContinuousClock.now.advanced(by: configuration.reconnectDelay)
        return CacheStoreError(
            error.isTimeout ? .timeout : .unavailable,
            "Redis at \(configuration.endpoint): \(error.description)",
            underlying: error)
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
