import CourierCore

/// What a read mode does with what is stored: the cache's rules as one
/// pure function, tested as a table (`CacheReadDecisionTests`).
enum CacheReadDecision {
    /// What the cache stage does.
    enum Action: Equatable {
        /// Ask the network (with the stored validators when `revalidate`).
        case network(revalidate: Bool)
        /// Answer from storage; with `refresh`, ask the network in the background.
        case answer(refresh: Bool)
        /// Deliver the stored response first, then ask the network.
        case deliverFirst(revalidate: Bool)
    }

    /// - Parameters:
    ///   - mode: The endpoint's read mode.
    ///   - role: Who runs the call: a `send` (the last delivery counts), a
    ///     caller of `deliveries` (every delivery counts), or a background refresh.
    ///   - stored: What is stored, and how fresh it is.
    ///   - canRevalidate: Whether the stored response has a validator and the
    ///     endpoint follows HTTP's headers.
    /// - Returns: What the cache stage does.
    static func decide(mode: CacheReadMode, role: CacheRole, stored: StoredState, canRevalidate: Bool)
        -> Action
    {
        let revalidate = canRevalidate && stored != .absent
        if role == .backgroundRefresh || mode == .none { return .network(revalidate: revalidate) }
        switch stored {
        case .absent:
            return .network(revalidate: false)
        case .stale:
            return .network(revalidate: revalidate)
        case .fresh, .staleServable:
            let refreshing = stored == .staleServable
            switch mode.kind {
            case .cancelNetwork, .http:
                return .answer(refresh: refreshing)
            case .alsoNetwork:
                return .answer(refresh: true)
            case .alsoNetworkWithCallback:
                // A `send` returns the network's answer: delivering the
                // stored one first would be thrown away.
                return role == .everyDelivery
                    ? .deliverFirst(revalidate: revalidate) : .network(revalidate: revalidate)
            case .none:
                return .network(revalidate: revalidate)
            }
        }
    }
}
