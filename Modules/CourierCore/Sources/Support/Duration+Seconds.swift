extension Duration {
    /// The duration in seconds, as a `Double` (what `TimeInterval` and
    /// Foundation's dates take).
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded down (libcurl's timeouts).
    package var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// Whole milliseconds, rounded up: a wait never ends before the duration has passed.
    package var millisecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    /// Whole microseconds, rounded down (a `timeval`).
    package var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// Whole nanoseconds, rounded down (a metrics timer).
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
