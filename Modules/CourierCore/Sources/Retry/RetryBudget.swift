/// How much retries may add to the load on a server, shared by every call
/// whose ``RetryPolicy`` carries it: Finagle's `RetryBudget`, gRPC's retry
/// throttling. During an outage every call fails and every call would
/// retry, tripling the traffic just when the server can least take it;
/// with a budget, retries stop once they reach ``ratio`` of the calls made
/// in the last ``window`` (plus a small allowance, ``minimumPerSecond``, so
/// that a client making few calls can still retry them), and the failure
/// is reported at once with ``RetryStopReason/retryBudgetExhausted``.
///
/// ```swift
/// // Retries add at most 10 % to the calls of every client using this policy.
/// let budget = RetryBudget(ratio: 0.1)
/// let policy = RetryPolicy(maxAttempts: 3, budget: budget)
/// ```
///
/// Counts are kept in ten slices of the window, so a burst ages out slice
/// by slice and no call is remembered on its own: recording costs a lock
/// and two additions. The budget reads its own clock (inject a
/// `TestClock` in tests); one budget may be shared by any number of clients.
public final class RetryBudget: Sendable, CustomStringConvertible {
    /// The share of calls that may be retried: 0.2 lets retries add 20 %.
    public let ratio: Double
    /// Retries allowed per second of the window whatever the calls.
    public let minimumPerSecond: Int
    /// How far back calls and retries count.
    public let window: Duration

    private struct Slice {
        var index: Int64
        var calls = 0
        var retries = 0
    }

    private static let slices = 10
    private let clock: any CourierClock
    private let state: Locked<[Slice]>

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
        self.window = max(window, .milliseconds(10))
        self.clock = clock
        state = Locked(Array(repeating: Slice(index: Int64.min), count: Self.slices))
    }

    /// `RetryBudget(ratio: 0.2, minimumPerSecond: 1, window: 10.0 seconds)`.
    public var description: String {
        "RetryBudget(ratio: \(ratio), minimumPerSecond: \(minimumPerSecond), window: \(window))"
    }

    /// The calls and retries counted in the window now.
    public var counts: (calls: Int, retries: Int) {
        let current = sliceIndex()
        return state.withLock { slices in
            Self.live(slices, current).reduce(into: (0, 0)) { sum, slice in
                sum.0 += slice.calls
                sum.1 += slice.retries
            }
        }
    }

    /// A call made its first attempt.
    package func recordCall() {
        let current = sliceIndex()
        state.withLock { slices in Self.slice(&slices, current) { $0.calls += 1 } }
    }

    /// Takes one retry from the budget.
    /// - Returns: Whether the retry may go; when not, nothing was taken.
    package func withdrawRetry() -> Bool {
        let current = sliceIndex()
        let allowance = Double(minimumPerSecond) * window.seconds
        return state.withLock { slices in
            let (calls, retries) = Self.live(slices, current).reduce(into: (0, 0)) { sum, slice in
                sum.0 += slice.calls
                sum.1 += slice.retries
            }
            guard Double(retries + 1) <= allowance + ratio * Double(calls) else { return false }
            Self.slice(&slices, current) { $0.retries += 1 }
            return true
        }
    }

    /// Which slice of time `now` falls in.
    private func sliceIndex() -> Int64 {
        let width = max(1, window.nanoseconds / Int64(Self.slices))
        return clock.now.nanoseconds / width
    }

    /// The slices still inside the window.
    private static func live(_ slices: [Slice], _ current: Int64) -> [Slice] {
        slices.filter { $0.index > current - Int64(Self.slices) && $0.index <= current }
    }

    /// Updates the slice for `current`, starting it afresh when its place held an old one.
    private static func slice(_ slices: inout [Slice], _ current: Int64, _ update: (inout Slice) -> Void) {
        let position = Int(((current % Int64(Self.slices)) + Int64(Self.slices)) % Int64(Self.slices))
        if slices[position].index != current { slices[position] = Slice(index: current) }
        update(&slices[position])
    }
}
