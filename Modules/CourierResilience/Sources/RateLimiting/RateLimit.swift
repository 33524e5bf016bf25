/// How many requests a key may send: `requests` per `period`, of which
/// `burst` may go at once — the generic cell rate algorithm (GCRA, ATM's
/// and Stripe's): requests are spaced `period / requests` apart on
/// average, and a key that was quiet may send `burst` back to back.
///
/// ```swift
/// RateLimit(requests: 100, per: .seconds(1))            // 100/s, all 100 at once after a quiet second
/// RateLimit(requests: 600, per: .seconds(60), burst: 10)  // 10/s on average, never more than 10 at once
/// ```
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Requests per ``period``.
    public var requests: Int { didSet { spacing = Spacing(self) } }
    /// The window ``requests`` are counted over.
    public var period: Duration { didSet { spacing = Spacing(self) } }
    /// How many may go back to back after a quiet spell; ``requests`` by default.
    public var burst: Int { didSet { spacing = Spacing(self) } }
    /// ``interval`` and ``tolerance``, worked out when the limit is made or
    /// changed rather than on every decision (a `Duration` division is a
    /// 128-bit one).
    private var spacing = Spacing()

    /// Creates a limit.
    /// - Parameters:
    ///   - requests: Requests per `period`; at least 1.
    ///   - period: The window; at least a millisecond.
    ///   - burst: How many may go at once; `requests` when `nil`; at least 1.
    public init(requests: Int, per period: Duration, burst: Int? = nil) {
        self.requests = max(1, requests)
        self.period = max(period, .milliseconds(1))
        self.burst = max(1, burst ?? requests)
        spacing = Spacing(self)
    }

    /// The average spacing between requests: `period / requests`.
    public var interval: Duration { spacing.interval }

    /// How far ahead of its theoretical time a request may go: `burst - 1`
    /// intervals.
    package var tolerance: Duration { spacing.tolerance }

    private struct Spacing: Sendable, Hashable {
        var interval = Duration.zero
        var tolerance = Duration.zero

        init() {}

        init(_ limit: RateLimit) {
            interval = limit.period / max(1, limit.requests)
            tolerance = interval * max(0, limit.burst - 1)
        }
    }

    /// `100 per 1.0 seconds, burst 100`.
    public var description: String { "\(requests) per \(period), burst \(burst)" }
}

/// What a ``RateLimitStore`` decided for one request.
public enum RateLimitDecision: Sendable, Hashable {
    /// It may go after `delay` (zero: now); its place is reserved.
    case go(after: Duration)
    /// It may not go within the wait it was allowed: it could in `retryAfter`.
    /// Nothing was reserved.
    case limited(retryAfter: Duration)
}

/// The GCRA state of one key: its theoretical arrival time and the end of
/// a pause the server announced — the whole algorithm, as a value, so that
/// every store (this process's, a fleet's) decides alike.
struct RateLimitCell: Sendable, Hashable {
    /// When the next request is due on average; the past when idle.
    var theoreticalArrival: Duration = .zero
    /// Until when the server asked for quiet.
    var pausedUntil: Duration = .zero

    /// Decides a request at `now` under `limit` (`nil`: only the server's
    /// pauses count) that may wait up to `maxWait`; reserves its place
    /// when it may go.
    mutating func decide(now: Duration, limit: RateLimit?, maxWait: Duration) -> RateLimitDecision {
        let start = max(now, pausedUntil)
        guard let limit else {
            let delay = start - now
            return delay <= maxWait ? .go(after: delay) : .limited(retryAfter: delay)
        }
        let arrival = max(theoreticalArrival, start)
        let allowedAt = max(arrival - limit.tolerance, start)
        let delay = allowedAt - now
        guard delay <= maxWait else { return .limited(retryAfter: delay) }
        theoreticalArrival = arrival + limit.interval
        return .go(after: delay)
    }

    /// The server asked for quiet until `until`.
    mutating func pause(until: Duration) {
        pausedUntil = max(pausedUntil, until)
    }
}
