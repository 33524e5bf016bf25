@_spi(Locking) public import CourierCore

/// How much retries may add to the load on a server, shared by every call
/// whose ``/CourierCore/RetryPolicy`` carries it (`RetryPolicy.budget`):
/// Finagle's `RetryBudget`, gRPC's retry throttling. During an outage every
/// call fails and every call would retry, tripling the traffic just when
/// the server can least take it;
/// with a budget, retries stop once they reach ``ratio`` of the calls made
/// in the last ``window`` (plus a small allowance, ``minimumPerSecond``, so
/// that a client making few calls can still retry them), and the failure
/// is reported at once with ``/CourierCore/RetryStopReason/retryBudgetExhausted``.
///
/// ```swift
/// // Retries add at most 10 % to the calls of every client using this policy.
/// let budget = RetryBudget(ratio: 0.1)
/// var policy = RetryPolicy(maxAttempts: 3)
/// policy.budget = budget
/// ```
///
/// Counts are kept in ten slices of the window (`SlidingWindowCounts`):
/// recording costs a lock and an addition. The budget reads its own clock (inject a
/// `TestClock` in tests); one budget may be shared by any number of clients.
public final class RetryBudget: RetryAllowance {
    /// The share of calls that may be retried: 0.2 lets retries add 20 %.
    public let ratio: Double
    /// Retries allowed per second of the window whatever the calls.
    public let minimumPerSecond: Int
    /// How far back calls and retries count.
    public let window: Duration

    private let clock: any CourierClock
    /// Calls (first) and retries (second).
    private let tallies: Locked<SlidingWindowCounts>

    /// Creates a budget.
    /// - Parameters:
    ///   - ratio: The share of calls that may be retried (0.2: at most 20 % more requests).
    ///   - minimumPerSecond: Retries always allowed per second of `window`.
    ///   - window: How long calls and retries count.
    ///   - clock: The clock; `SystemClock()` unless testing.
    public init(
        ratio: Double = 0.2, minimumPerSecond: Int = 1, window: Duration = .seconds(10),
        clock: any CourierClock = SystemClock()
    ) {
        self.ratio = max(0, ratio)
        self.minimumPerSecond = max(0, minimumPerSecond)
        self.clock = clock
        self.window = max(window, .milliseconds(10))
        tallies = Locked(SlidingWindowCounts(length: self.window))
    }

    /// `RetryBudget(ratio: 0.2, minimumPerSecond: 1, window: 10.0 seconds)`.
    public var description: String {
        "RetryBudget(ratio: \(ratio), minimumPerSecond: \(minimumPerSecond), window: \(window))"
    }

    /// The calls and retries counted in the window now.
    public var counts: (calls: Int, retries: Int) {
        let now = clock.now
        let totals = tallies.withLock { $0.totals(at: now) }
        return (totals.first, totals.second)
    }

    /// A call made its first attempt.
    package func recordCall() {
        let now = clock.now
        tallies.withLock { $0.add(first: 1, at: now) }
    }

    /// Takes one retry from the budget.
    /// - Returns: Whether the retry may go; when not, nothing was taken.
    package func withdrawRetry() -> Bool {
        let now = clock.now
        let allowance = Double(minimumPerSecond) * window.seconds
        return tallies.withLock { tallies in
            let (calls, retries) = tallies.totals(at: now)
            guard Double(retries + 1) <= allowance + ratio * Double(calls) else { return false }
            tallies.add(second: 1, at: now)
            return true
        }
    }
}

extension RetryPolicy {
    /// How much retries may add to the load (``RetryBudget``), shared by
    /// every call whose policy carries the same budget; `nil` (no budget)
    /// by default. A retry the budget refuses stops with
    /// ``/CourierCore/RetryStopReason/retryBudgetExhausted``.
    public var budget: RetryBudget? {
        get { allowance as? RetryBudget }
        set { allowance = newValue }
    }
}
