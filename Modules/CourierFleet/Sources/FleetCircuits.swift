@_spi(Locking) public import CourierCore
import CourierRedis
public import CourierResilience

/// The fleet's side of a shared ``/CourierResilience/CircuitBreaker``: every
/// instance's outcomes through a closed circuit counted together on Redis
/// (each one a posted script: no call waits for it), and a circuit the
/// fleet opened open for every instance until the open duration ends. Each
/// instance then sends its own probes. While Redis is away each instance's
/// breaker decides alone, as an unshared one does.
struct FleetCircuits: CircuitSharing {
    let fleet: FleetState

    func openFor(_ origin: String) async -> Duration? {
        let reply = await fleet.perform([
            Array("PTTL".utf8), Array((fleet.key("circuit", origin) + ":open").utf8),
        ])
        guard let milliseconds = reply?.integer, milliseconds > 0 else { return nil }
        return .milliseconds(milliseconds)
    }

    func record(_ origin: String, failed: Bool, _ configuration: CircuitBreaker.Configuration) {
        let window = max(1, Int64((configuration.window / .seconds(1)).rounded(.up)))
        let open = Int64((configuration.openDuration / .milliseconds(1)).rounded(.up))
        fleet.post(
            FleetScripts.recordOutcome, keys: [fleet.key("circuit", origin)],
            arguments: [
                window, failed ? 1 : 0, Int64(configuration.minimumCalls),
                Int64((configuration.failureRateThreshold * 1_000_000).rounded()), max(1, open),
            ])
    }
}

extension CircuitBreaker {
    /// A breaker whose circuits the fleet shares on `fleet`'s Redis: the
    /// outcomes of every instance count towards one threshold, and once it
    /// is crossed the circuit is open for every instance; each instance
    /// probes on its own when the open duration ends. Without Redis, each
    /// instance's breaker decides alone.
    /// - Parameters:
    ///   - configuration: When circuits open and how they are probed;
    ///     the window counts in whole seconds, in at most ten buckets
    ///     (a minute's window slides six seconds at a time).
    ///   - fleet: The fleet's shared state.
    ///   - clock: The clock of each instance's own circuits.
    public convenience init(
        _ configuration: Configuration = .init(), fleet: FleetState, clock: any CourierClock = SystemClock()
    ) {
        self.init(configuration, clock: clock, shared: FleetCircuits(fleet: fleet))
    }
}
