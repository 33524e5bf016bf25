@_spi(Locking) public import CourierCore

/// Where a ``RateLimiter`` keeps each key's state: in this process
/// (``LocalRateLimitStore``), or shared by a fleet.
public protocol RateLimitStore: Sendable {
    /// Decides a request for `key` under `limit` (`nil`: only the pauses the
    /// server announced count) that may wait up to `maxWait`, reserving its
    /// place when it may go.
    func reserve(_ key: String, limit: RateLimit?, maxWait: Duration) async throws -> RateLimitDecision
    /// The server asked `key` to be quiet for `duration`: every caller of the
    /// key waits it out (or fails at once, as its limiter says).
    func pause(_ key: String, for duration: Duration) async throws
}

/// A ``RateLimitStore`` in this process's memory: exact, free of I/O, and
/// shared by every client that shares the limiter.
public final class LocalRateLimitStore: RateLimitStore {
    private let cells = Locked<[String: RateLimitCell]>([:])
    private let clock: any CourierClock

    /// Creates an empty store.
    /// - Parameter clock: The clock decisions are made by; `SystemClock()` unless testing.
    public init(clock: any CourierClock = SystemClock()) {
        self.clock = clock
    }

    /// Decides `key`'s request now, by the cell rate algorithm.
    public func reserve(_ key: String, limit: RateLimit?, maxWait: Duration) -> RateLimitDecision {
        let now = clock.now
        return cells.withLock { cells in
            cells[key, default: RateLimitCell()].decide(now: now, limit: limit, maxWait: maxWait)
        }
    }

    /// Pauses `key` until `duration` from now (a longer pause stands).
    public func pause(_ key: String, for duration: Duration) {
        let until = clock.now + duration
        cells.withLock { $0[key, default: RateLimitCell()].pause(until: until) }
    }
}
