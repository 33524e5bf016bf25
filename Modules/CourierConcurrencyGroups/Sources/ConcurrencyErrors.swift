public import CourierCore

extension CourierError.Stage {
    /// A ``ConcurrencyGroup`` deciding whether an attempt may run (7).
    public static let concurrency = Self("concurrency")
}
