@_spi(Locking) public import CourierCore
import CourierRedis
public import CourierResilience

/// A ``/CourierResilience/RateLimitStore`` on the fleet's Redis: one rate
/// for every instance, decided by one script per attempt (one round trip,
/// pipelined with the other instances' commands of the moment) on the
/// server's clock.
///
/// While Redis is away — down, or slower than the fleet's command timeout —
/// each instance decides alone with its share of the limit (requests and
/// burst ÷ ``FleetState/Configuration/expectedInstances``), so the fleet
/// as a whole stays near its rate; a pause the server announced is kept
/// locally too, and the shared rate takes over again when Redis is back.
public final class RedisRateLimitStore: RateLimitStore {
    private let fleet: FleetState
    private let alone: LocalRateLimitStore

    /// A store on `fleet`'s Redis.
    /// - Parameters:
    ///   - fleet: The fleet's shared state.
    ///   - clock: The clock of the decisions made alone.
    public init(_ fleet: FleetState, clock: any CourierClock = SystemClock()) {
        self.fleet = fleet
        alone = LocalRateLimitStore(clock: clock)
    }

    /// Decides `key`'s request by the fleet's shared rate, or alone with
    /// this instance's share while Redis is away.
    public func reserve(_ key: String, limit: RateLimit?, maxWait: Duration) async -> RateLimitDecision {
        let interval = limit.map { Self.microseconds($0.interval) } ?? 0
        let tolerance = limit.map { Self.microseconds($0.tolerance) } ?? 0
        let reply = await fleet.run(
            FleetScripts.reserve, keys: [redisKey(key)],
            arguments: [interval, tolerance, Self.microseconds(maxWait)])
        if case .array(let parts)? = reply, parts.count == 2, let allowed = parts[0].integer,
            let delay = parts[1].integer
        {
            let wait = Duration.microseconds(max(0, delay))
            return allowed == 1 ? .go(after: wait) : .limited(retryAfter: wait)
        }
        return alone.reserve(key, limit: limit.map(share), maxWait: maxWait)
    }

    /// Pauses `key` for every instance (and for this one alone, should
    /// Redis go away before the pause ends).
    public func pause(_ key: String, for duration: Duration) async {
        alone.pause(key, for: duration)
        _ = await fleet.run(
            FleetScripts.pause, keys: [redisKey(key)], arguments: [Self.microseconds(duration)])
    }

    /// The Lua the store runs for each decision (`EVALSHA`, loaded once per
    /// connection): for operators who look at what reaches Redis, and for a
    /// benchmark's raw floor.
    public static var reserveScript: String { FleetScripts.reserve }

    private func redisKey(_ key: String) -> String { fleet.key("rate", key) }

    /// This instance's share of `limit` while it decides alone.
    func share(_ limit: RateLimit) -> RateLimit {
        let instances = fleet.configuration.expectedInstances
        return RateLimit(
            requests: max(1, limit.requests / instances), per: limit.period,
            burst: max(1, limit.burst / instances))
    }

    private static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
