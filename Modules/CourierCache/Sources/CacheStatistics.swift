import Synchronization

/// What a ``ResponseCache`` has done since it was made.
public struct CacheStatistics: Sendable, Hashable {
    /// Stored responses delivered (answers and early deliveries).
    public var hits = 0
    /// Reads that found nothing usable.
    public var misses = 0
    /// Responses written (to one tier or both).
    public var writes = 0
    /// 304s that refreshed a stored response.
    public var revalidations = 0
    /// Stored responses dropped because they no longer passed validation or decoding.
    public var rejected = 0
    /// Refreshes started in the background.
    public var backgroundRefreshes = 0
    /// Background refreshes that failed (each also a ``CacheEvent`` and,
    /// for plugins, a call whose `CallContext.isBackgroundRefresh` is set).
    public var backgroundRefreshFailures = 0
    /// Calls the network failed that a stale response answered (`stale-if-error`).
    public var staleOnError = 0
    /// Store operations that failed.
    public var storeFailures = 0
}

/// The counts behind ``CacheStatistics``: atomics, so that counting costs a
/// hit no lock.
final class CacheCounters: Sendable {
    enum Event {
        case hit, miss, write, revalidation, rejected, backgroundRefresh, backgroundRefreshFailure
        case staleOnError, storeFailure
    }

    private let hits = Atomic(0)
    private let misses = Atomic(0)
    private let writes = Atomic(0)
    private let revalidations = Atomic(0)
    private let rejected = Atomic(0)
    private let backgroundRefreshes = Atomic(0)
    private let backgroundRefreshFailures = Atomic(0)
    private let staleOnError = Atomic(0)
    private let storeFailures = Atomic(0)

    func count(_ event: Event) {
        switch event {
        case .hit: hits.add(1, ordering: .relaxed)
        case .miss: misses.add(1, ordering: .relaxed)
        case .write: writes.add(1, ordering: .relaxed)
        case .revalidation: revalidations.add(1, ordering: .relaxed)
        case .rejected: rejected.add(1, ordering: .relaxed)
        case .backgroundRefresh: backgroundRefreshes.add(1, ordering: .relaxed)
        case .backgroundRefreshFailure: backgroundRefreshFailures.add(1, ordering: .relaxed)
        case .staleOnError: staleOnError.add(1, ordering: .relaxed)
        case .storeFailure: storeFailures.add(1, ordering: .relaxed)
        }
    }

    var snapshot: CacheStatistics {
        CacheStatistics(
            hits: hits.load(ordering: .relaxed), misses: misses.load(ordering: .relaxed),
            writes: writes.load(ordering: .relaxed), revalidations: revalidations.load(ordering: .relaxed),
            rejected: rejected.load(ordering: .relaxed),
            backgroundRefreshes: backgroundRefreshes.load(ordering: .relaxed),
            backgroundRefreshFailures: backgroundRefreshFailures.load(ordering: .relaxed),
            staleOnError: staleOnError.load(ordering: .relaxed),
            storeFailures: storeFailures.load(ordering: .relaxed))
    }
}
