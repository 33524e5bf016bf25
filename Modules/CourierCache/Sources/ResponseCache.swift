@_spi(Locking) public import CourierCore
import HTTPTypes
public import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An app-level response cache for an ``CourierCore/APIClient``: a memory
/// tier and an optional disk tier, the defaults every endpoint's
/// ``CachePolicy`` starts from, and the rules that keep private responses
/// private.
///
/// Give it to a client, then say per endpoint how to use it:
///
/// ```swift
/// let cache = ResponseCache(disk: try await DiskStore.open(directory: cachesDirectory))
/// var configuration = APIClient.Configuration(transport: CurlTransport.shared, decoder: .codable)
/// configuration.cache = cache
/// let client = APIClient(configuration: configuration)
///
/// let products = Endpoint<[Product]>(.get("products"), on: .api).cache(.alsoNetworkWithCallback)
/// for await delivery in client.deliveries(products) {
///     show(try delivery.get(), stale: delivery.source == .cache)
/// }
/// ```
///
/// A stored response is a response like any other: validated (status,
/// content type, envelope — a stored `{"code": 1001}` is never a success)
/// and decoded by the pipeline, counting no attempt. Reads never block the
/// concurrency pool (memory is a short lock, disk runs on the store's own
/// thread); writes happen after the caller has its result — memory at once,
/// disk in the background (``settle()`` waits for them).
///
/// **What is never stored**: a response to a request that carried a
/// credential (a field of the client's ``/CourierCore/CredentialFields``,
/// or an authenticating interceptor), unless the endpoint opts in — and
/// then the key includes a digest of the credential; a response marked
/// `Cache-Control: no-store`, or a request that said so; in a
/// ``CacheSharing/shared`` cache, a `private` one. No credential field
/// (`Set-Cookie` among them) is written to any store.
public final class ResponseCache: Sendable, ResponseCaching {
    /// The memory tier, if any.
    public let memory: MemoryStore?
    /// The second tier — a ``DiskStore`` or a store of your own — if any.
    public let disk: (any CacheStore)?
    /// The policy every endpoint starts from.
    public let defaults: CachePolicy
    /// Whether this cache serves one user or many.
    public let sharing: CacheSharing
    let clock: any CourierClock
    /// Disk writes and removals in flight.
    let writes = PendingWork()
    /// Background refreshes in flight.
    let refreshes = PendingWork()
    let counters = CacheCounters()
    /// ``defaults`` resolved once, for endpoints that change nothing.
    private let resolvedDefaults: ResolvedCachePolicy
    private let onStoreError: (@Sendable (CacheStoreError) -> Void)?
    private let onEvent: (@Sendable (CacheEvent) -> Void)?
    /// Where each pass's outcome is logged, at debug level.
    let logger: Logger

    /// Creates a cache.
    /// - Parameters:
    ///   - memory: The memory tier: 16 MiB by default; `nil` for none.
    ///   - disk: The second tier, or `nil` (the default) for none.
    ///   - defaults: What endpoints do unless they say otherwise: read
    ///     nothing, write both tiers, expire after five minutes.
    ///   - sharing: ``CacheSharing/private`` (one user) by default.
    ///   - clock: Dates for storing and expiry (a `TestClock` in tests).
    ///   - onStoreError: Told of every store failure (a read that became a
    ///     miss, a write that did not happen); calls never fail for them.
    ///   - logger: Where each pass's outcome goes, at debug level — above
    ///     all why a call was not answered from the cache or not stored
    ///     (``CacheSkip``): `courier.cache` by default.
    ///   - onEvent: Told of each pass's outcome (``CacheEvent``), from the
    ///     call's task: for tests and metrics.
    public init(
        memory: MemoryStore? = MemoryStore(), disk: (any CacheStore)? = nil,
        defaults: CachePolicy = CachePolicy(),
        sharing: CacheSharing = .private,
        clock: any CourierClock = SystemClock(), onStoreError: (@Sendable (CacheStoreError) -> Void)? = nil,
        logger: Logger = Logger(label: "courier.cache"), onEvent: (@Sendable (CacheEvent) -> Void)? = nil
    ) {
        self.memory = memory
        self.disk = disk
        self.defaults = defaults
        self.sharing = sharing
        self.clock = clock
        self.onStoreError = onStoreError
        self.logger = logger
        self.onEvent = onEvent
        self.resolvedDefaults = ResolvedCachePolicy(defaults, nil)
    }

    /// A cache for one process of a fleet: a short-lived memory tier in
    /// front of a store every process shares (`CourierCacheRedis`'s
    /// `RedisStore`, or your own).
    ///
    /// A write goes to both tiers; a read tries memory, then the shared
    /// store (and keeps what it found in memory). An entry stays in memory
    /// at most `memoryTimeToLive`, so what another process refreshed or
    /// removed is seen here within it. When the shared store fails, calls
    /// go on from memory and the network — never failing for it.
    /// - Parameters:
    ///   - shared: The store every process shares.
    ///   - memoryTimeToLive: How long this process keeps an entry to itself: 5 s.
    ///   - memoryCostLimit: The memory tier's size: 16 MiB.
    ///   - defaults: What endpoints do unless they say otherwise.
    ///   - sharing: ``CacheSharing/shared`` by default: a fleet's cache serves many users.
    ///   - clock: Dates for storing, expiry and the memory tier's lifetime.
    ///   - onStoreError: Told of every store failure.
    ///   - logger: Where each pass's outcome goes, at debug level.
    ///   - onEvent: Told of each pass's outcome.
    public convenience init(
        memoryAndShared shared: any CacheStore, memoryTimeToLive: Duration = .seconds(5),
        memoryCostLimit: Int = 16 << 20, defaults: CachePolicy = CachePolicy(),
        sharing: CacheSharing = .shared,
        clock: any CourierClock = SystemClock(),
        onStoreError: (@Sendable (CacheStoreError) -> Void)? = nil,
        logger: Logger = Logger(label: "courier.cache"), onEvent: (@Sendable (CacheEvent) -> Void)? = nil
    ) {
        self.init(
            memory: MemoryStore(costLimit: memoryCostLimit, timeToLive: memoryTimeToLive, clock: clock),
            disk: shared, defaults: defaults, sharing: sharing,
            clock: clock, onStoreError: onStoreError, logger: logger, onEvent: onEvent)
    }

    // MARK: - Housekeeping (CSAPIService's APICacheTool duties)

    /// Removes every entry from every tier.
    public func removeAll() async throws(CacheStoreError) {
        await writes.idle()
        try await memory?.removeAll()
        try await disk?.removeAll()
    }

    /// Removes the entry under `key` from every tier.
    public func remove(_ key: CacheKey) async throws(CacheStoreError) {
        memory?.remove(key)
        try await disk?.removeEntry(for: key)
    }

    /// Removes every stored response of calls to `endpoint` — the same
    /// node, route, path values and query parameters — from every tier:
    /// each user's, each variant, under whatever key rule.
    /// - Returns: How many entries were removed (both tiers counted).
    @discardableResult
    public func remove<Response>(_ endpoint: Endpoint<Response>) async throws(CacheStoreError) -> Int {
        try await remove(tagged: .endpoint(endpoint.spec))
    }

    /// Removes every stored response whose URL is `prefix` or lies under
    /// it, segment by segment: `https://api.example.com/v1/users` removes
    /// `…/v1/users` and `…/v1/users/7?expand=1`, not `…/v1/users-archive`.
    /// - Parameter prefix: An absolute URL; its query, if any, is ignored.
    /// - Returns: How many entries were removed (both tiers counted).
    /// - Throws: ``CacheStoreError`` from a tier; `.unsupported` for a URL
    ///   without a scheme and host.
    @discardableResult
    public func removeAll(under prefix: String) async throws(CacheStoreError) -> Int {
        guard let head = HTTPRequest(getting: prefix) else {
            throw CacheStoreError(.unsupported, "not an absolute URL: \(prefix)")
        }
        return try await remove(tagged: .prefix(of: head))
    }

    /// Removes every stored response of the endpoints whose policy names
    /// `tag` (``CachePolicy/tags``).
    /// - Returns: How many entries were removed (both tiers counted).
    @discardableResult
    public func removeAll(tagged tag: String) async throws(CacheStoreError) -> Int {
        try await remove(tagged: CacheTag(tag))
    }

    /// Removes the entries tagged `tag` from every tier, after the writes
    /// in flight (so that none lands after the removal).
    @discardableResult
    public func remove(tagged tag: CacheTag) async throws(CacheStoreError) -> Int {
        let fromMemory = memory?.remove(tagged: tag) ?? 0
        await writes.idle()
        return fromMemory + (try await disk?.removeEntries(tagged: tag) ?? 0)
    }

    /// Removes the expired entries from every tier. - Returns: How many.
    @discardableResult
    public func removeExpired() async throws(CacheStoreError) -> Int {
        let now = clock.date
        let fromMemory = try await memory?.removeExpired(now: now) ?? 0
        return fromMemory + (try await disk?.removeExpired(now: now) ?? 0)
    }

    /// The bytes each tier's entries take.
    public func totalSize() async throws(CacheStoreError) -> (memory: Int, disk: Int) {
        (try await memory?.totalSize() ?? 0, try await disk?.totalSize() ?? 0)
    }

    /// Returns once the writes and background refreshes started so far have
    /// ended: for tests, and before a process exits.
    public func settle() async {
        await refreshes.idle()
        await writes.idle()
    }

    /// What the cache has done so far.
    public var statistics: CacheStatistics { counters.snapshot }

    // MARK: - The pipeline's seam

    /// The cache's part in one pass: `nil` for endpoints that neither read
    /// nor write it (the call then costs nothing more).
    package func begin(_ spec: EndpointSpec, _ call: CacheCall) -> (any CachePass)? {
        let overrides = spec.attachments.value(for: CacheOverrides.id) as? CacheOverrides
        if overrides?.disabled == true { return nil }
        let policy = overrides.map { ResolvedCachePolicy(defaults, $0) } ?? resolvedDefaults
        guard spec.downloadTarget == nil, overrides != nil || policy.read != .none,
            policy.read != .none || !policy.write.isEmpty
        else {
            // An unsafe call still makes what is stored for its URI out of date.
            let unsafe = !InvalidationPass.safeMethods.contains(spec.route.method)
            return unsafe ? InvalidationPass(cache: self) : nil
        }
        return CachePassWork(cache: self, policy: policy, call: call, spec: spec)
    }

    /// Logs a pass's outcome at debug level and tells `onEvent`.
    /// Nothing is made when nobody listens: a hit on the hot path costs a
    /// level check.
    func report(_ outcome: CacheEvent.Outcome, _ call: CacheCall) {
        guard onEvent != nil || logger.logLevel <= .debug else { return }
        let event = CacheEvent(outcome, callID: call.callID, endpoint: call.route.description)
        logger.debug(
            "\(event)",
            metadata: ["courier.call": "\(event.callID)", "courier.endpoint": "\(event.endpoint)"])
        onEvent?(event)
    }

    // MARK: - Tiers

    /// The entry under `key`: memory first, then disk (promoted to memory
    /// when the policy writes there). A failed disk read is a miss.
    func lookup(_ key: CacheKey, now: Date, promote: Bool) async -> CacheEntry? {
        if let entry = memory?.cachedEntry(for: key, now: now) { return entry }
        return await diskLookup(key, now: now, promote: promote)
    }

    /// The disk half of ``lookup(_:now:promote:)``.
    func diskLookup(_ key: CacheKey, now: Date, promote: Bool) async -> CacheEntry? {
        guard let disk else { return nil }
        do {
            guard let entry = try await disk.entry(for: key, now: now) else { return nil }
            if promote { memory?.put(entry, for: key) }
            return entry
        } catch {
            report(error)
            return nil
        }
    }

    /// Writes `entry`: memory at once, disk in the background.
    func write(_ entry: CacheEntry, for key: CacheKey, to tiers: CacheWriteTier) {
        counters.count(.write)
        if tiers.contains(.memory) { memory?.put(entry, for: key) }
        if tiers.contains(.disk) {
            onDisk { disk throws(CacheStoreError) in try await disk.store(entry, for: key) }
        }
    }

    /// Forgets `key` everywhere (a stored response that no longer decodes, an invalidation).
    func forget(_ key: CacheKey) {
        memory?.remove(key)
        onDisk { disk throws(CacheStoreError) in try await disk.removeEntry(for: key) }
    }

    /// Forgets every entry tagged `tag` (an invalidation): memory at once,
    /// the second tier in the background.
    func forget(tagged tag: CacheTag) {
        memory?.remove(tagged: tag)
        onDisk { disk throws(CacheStoreError) in try await disk.removeEntries(tagged: tag) }
    }

    /// Runs `work` on the second tier in the background, counted among the
    /// writes ``settle()`` waits for; a failure is reported, never thrown.
    private func onDisk(_ work: @escaping @Sendable (any CacheStore) async throws(CacheStoreError) -> Void) {
        guard let disk else { return }
        writes.run { [self] in
            do throws(CacheStoreError) {
                try await work(disk)
            } catch {
                report(error)
            }
        }
    }

    private func report(_ error: CacheStoreError) {
        counters.count(.storeFailure)
        onStoreError?(error)
    }
}
