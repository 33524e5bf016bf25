extension Duration {
    /// The duration in seconds, as a `Double` (what `TimeInterval` and
    /// Foundation's dates take).
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded down (libcurl's timeouts).
    package var milliseconds: Int64 { whole(perSecond: 1_000) }

    /// Whole milliseconds, rounded up: a wait never ends before the duration has passed.
    package var millisecondsRoundedUp: Int64 { whole(perSecond: 1_000, roundingUp: true) }

    /// Whole microseconds, rounded down (a `timeval`).
    package var microseconds: Int64 { whole(perSecond: 1_000_000) }

    /// Whole nanoseconds, rounded down (a metrics timer).
    package var nanoseconds: Int64 { whole(perSecond: 1_000_000_000) }

    /// The duration in units of which `perSecond` make a second (a power of
    /// ten up to 10¹⁸), rounded down or up.
    private func whole(perSecond units: Int64, roundingUp: Bool = false) -> Int64 {
        let (seconds, attoseconds) = components
        let attosecondsPerUnit = 1_000_000_000_000_000_000 / units
        let rounding = roundingUp ? attosecondsPerUnit - 1 : 0
        return seconds * units + (attoseconds + rounding) / attosecondsPerUnit
    }
}
