/// One origin's circuit as a plain value: outcomes in, verdicts out, no
/// locks and no clock of its own (times are the breaker clock's `now`), so
/// every transition is tested as a table. ``CircuitBreaker`` keeps one per
/// origin behind its lock.
///
/// Closed, it counts outcomes in ten slices of the window and opens when
/// at least `minimumCalls` ended there and the share that failed reaches
/// the threshold. Open, it refuses every attempt until its end. Then
/// half-open: it lets `halfOpenProbes` attempts through; all of them
/// succeeding closes it (the counts start afresh), any failing opens it again.
struct CircuitState: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        case closed
        case open(until: Duration)
        /// Probes on the network, and probes that succeeded.
        case halfOpen(inFlight: Int, succeeded: Int)
    }

    /// Which kind of place an admitted attempt took: its outcome counts only
    /// while the circuit is still in the phase that admitted it.
    enum Permit: Sendable, Equatable {
        case closed
        case probe
    }

    struct Slice: Sendable, Equatable {
        var index: Int64
        var successes = 0
        var failures = 0
    }

    static let slices = 10
    private(set) var phase = Phase.closed
    private var window: [Slice] = Array(repeating: Slice(index: Int64.min), count: Self.slices)

    /// An attempt asks to go.
    /// - Returns: Its permit, or `nil` when the circuit refuses it.
    mutating func admit(now: Duration, _ configuration: CircuitBreaker.Configuration) -> Permit? {
        if case .open(let until) = phase {
            guard now >= until else { return nil }
            phase = .halfOpen(inFlight: 0, succeeded: 0)
        }
        switch phase {
        case .closed: return .closed
        case .halfOpen(let inFlight, let succeeded):
            guard inFlight + succeeded < configuration.halfOpenProbes else { return nil }
            phase = .halfOpen(inFlight: inFlight + 1, succeeded: succeeded)
            return .probe
        case .open: return nil
        }
    }

    /// An admitted attempt ended: `failed` is `nil` when it ended without
    /// a verdict on the server (cancelled), which only gives a probe's place back.
    mutating func record(
        _ permit: Permit, failed: Bool?, now: Duration, _ configuration: CircuitBreaker.Configuration
    ) {
        switch (permit, phase) {
        case (.closed, .closed):
            guard let failed else { return }
            let current = Self.sliceIndex(now, configuration.window)
            let position = Int(((current % Int64(Self.slices)) + Int64(Self.slices)) % Int64(Self.slices))
            if window[position].index != current { window[position] = Slice(index: current) }
            if failed { window[position].failures += 1 } else { window[position].successes += 1 }
            let (successes, failures) = counts(now: now, configuration.window)
            let total = successes + failures
            if total >= configuration.minimumCalls,
                Double(failures) >= configuration.failureRateThreshold * Double(total)
            {
                open(now: now, configuration)
            }
        case (.probe, .halfOpen(let inFlight, let succeeded)):
            switch failed {
            case nil: phase = .halfOpen(inFlight: inFlight - 1, succeeded: succeeded)
            case true?: open(now: now, configuration)
            case false?:
                if succeeded + 1 >= configuration.halfOpenProbes {
                    phase = .closed
                    window = Array(repeating: Slice(index: Int64.min), count: Self.slices)
                } else {
                    phase = .halfOpen(inFlight: inFlight - 1, succeeded: succeeded + 1)
                }
            }
        default:
            // Admitted in an earlier phase: the circuit has moved on.
            break
        }
    }

    /// Outcomes counted in the window at `now`.
    func counts(now: Duration, _ window: Duration) -> (successes: Int, failures: Int) {
        let current = Self.sliceIndex(now, window)
        return self.window.filter { $0.index > current - Int64(Self.slices) && $0.index <= current }
            .reduce(into: (0, 0)) { sum, slice in
                sum.0 += slice.successes
                sum.1 += slice.failures
            }
    }

    private mutating func open(now: Duration, _ configuration: CircuitBreaker.Configuration) {
        phase = .open(until: now + configuration.openDuration)
    }

    private static func sliceIndex(_ now: Duration, _ window: Duration) -> Int64 {
        now.nanoseconds / max(1, window.nanoseconds / Int64(slices))
    }
}
