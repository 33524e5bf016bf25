extension Duration {
    /// The duration in seconds, as a `Double` (what `TimeInterval` and
    /// Foundation's dates take).
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
