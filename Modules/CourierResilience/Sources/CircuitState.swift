@_spi(Locking) import CourierCore

/// One origin's circuit as a plain value: outcomes in, verdicts out, no
/// locks and no clock of its own (times are the breaker clock's `now`), so
/// every transition is tested as a table. ``CircuitBreaker`` keeps one per
/// origin behind its lock.
///
/// Closed, it counts outcomes over the window (`SlidingWindowCounts`) and opens when
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

    private(set) var phase = Phase.closed
    /// Successes (first) and failures (second) while closed.
    private var outcomes: SlidingWindowCounts

    /// A closed circuit counting outcomes over `window`.
    init(window: Duration) {
        outcomes = SlidingWindowCounts(length: window)
    }

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
            outcomes.add(first: failed ? 0 : 1, second: failed ? 1 : 0, at: now)
            let (successes, failures) = outcomes.totals(at: now)
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
                    outcomes = SlidingWindowCounts(length: configuration.window)
                } else {
                    phase = .halfOpen(inFlight: inFlight - 1, succeeded: succeeded + 1)
                }
            }
        default:
            // Admitted in an earlier phase: the circuit has moved on.
            break
        }
    }

    /// Other instances opened the circuit until `until`: a closed circuit
    /// opens too (its counts start afresh when it closes again); one open
    /// or probing already keeps its own course.
    mutating func adopt(openUntil until: Duration) {
        guard case .closed = phase else { return }
        phase = .open(until: until)
    }

    private mutating func open(now: Duration, _ configuration: CircuitBreaker.Configuration) {
        phase = .open(until: now + configuration.openDuration)
    }
}
