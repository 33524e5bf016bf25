@_spi(Locking) public import CourierCore
import CourierRedis
public import CourierResilience

/// A retry budget for the whole fleet (Finagle's `RetryBudget`, shared):
/// retries by every instance add at most ``ratio`` to the calls every
/// instance made over the last ``window`` (plus ``minimumPerSecond``), so
/// that twenty instances in an outage retry as much as one would, not
/// twenty times as much.
///
/// Each call is counted with one command sent without waiting for its
/// reply; each retry asks Redis once. While Redis is away each instance
/// keeps its own budget — the same ratio over its own calls, its share of
/// the minimum — and returns to the shared one when Redis is back.
///
/// ```swift
/// var policy = RetryPolicy(maxAttempts: 3)
/// policy.fleetBudget = FleetRetryBudget(fleet, ratio: 0.1)
/// ```
public final class FleetRetryBudget: RetryAllowance {
    /// The share of calls that may be retried (0.1: at most 10 % more requests).
    public let ratio: Double
    /// Retries always allowed per second of ``window``, for the whole fleet.
    public let minimumPerSecond: Int
    /// How long calls and retries count, in whole seconds.
    public let window: Duration
    private let fleet: FleetState
    private let key: String
    private let alone: RetryBudget
    private let seen = Locked((calls: 0, retries: 0))

    /// A budget on `fleet`'s Redis.
    /// - Parameters:
    ///   - fleet: The fleet's shared state.
    ///   - name: Which budget, when the fleet keeps several (one per service).
    ///   - ratio: The share of calls that may be retried.
    ///   - minimumPerSecond: Retries always allowed per second, fleet-wide.
    ///   - window: How long calls and retries count; rounded up to whole
    ///     seconds. On Redis a window is at most ten buckets (a minute's
    ///     window slides six seconds at a time), so each retry asked costs
    ///     the same whatever the window.
    public init(
        _ fleet: FleetState, name: String = "default", ratio: Double = 0.2, minimumPerSecond: Int = 1,
        window: Duration = .seconds(10)
    ) {
        self.fleet = fleet
        self.ratio = max(0, ratio)
        self.minimumPerSecond = max(0, minimumPerSecond)
        let seconds = max(1, Int((window / .seconds(1)).rounded(.up)))
        self.window = .seconds(seconds)
        key = fleet.key("budget", name)
        let instances = fleet.configuration.expectedInstances
        alone = RetryBudget(
            ratio: self.ratio, minimumPerSecond: max(0, minimumPerSecond / instances), window: self.window)
    }

    /// Counts a call for the fleet (without waiting) and for this instance.
    package func recordCall() {
        alone.recordCall()
        fleet.post(FleetScripts.recordCall, keys: [key], arguments: [Int64(window / .seconds(1))])
    }

    /// Asks the fleet's budget for one retry; this instance's own while
    /// Redis is away.
    package func withdrawRetry() async -> Bool {
        let reply = await fleet.run(
            FleetScripts.withdrawRetry, keys: [key],
            arguments: [
                Int64(window / .seconds(1)), Int64((ratio * 1_000_000).rounded()), Int64(minimumPerSecond),
            ])
        guard case .array(let parts)? = reply, parts.count == 3, let granted = parts[0].integer,
            let calls = parts[1].integer, let retries = parts[2].integer
        else {
            return alone.withdrawRetry()
        }
        seen.withLock { $0 = (Int(calls), Int(retries)) }
        return granted == 1
    }

    /// The fleet's calls and retries in the window, as Redis last said.
    package var counts: (calls: Int, retries: Int) { seen.withLock { $0 } }

    /// `FleetRetryBudget(ratio: 0.2, minimumPerSecond: 1, window: 10 seconds)`.
    public var description: String {
        "FleetRetryBudget(ratio: \(ratio), minimumPerSecond: \(minimumPerSecond), window: \(window))"
    }
}

extension RetryPolicy {
    /// A retry budget shared by the fleet (``FleetRetryBudget``); `nil` by
    /// default. One policy has one budget: setting this replaces a
    /// `budget`, and the other way round.
    public var fleetBudget: FleetRetryBudget? {
        get { allowance as? FleetRetryBudget }
        set { allowance = newValue }
    }
}
