/// Sees a fleet's shared state go away and come back: the moments an
/// instance starts deciding alone (with its share of every limit) and
/// goes back to deciding with the fleet.
///
/// A fleet's fallback belongs to the process, not to a call: it is told
/// once when it happens, not to every call that meets it, so it is not one
/// of `CallEvent`'s kinds. Events are told synchronously on the fleet's
/// Redis thread: keep `fleetEvent(_:)` quick and never block in it.
///
/// ```swift
/// struct Pager: FleetMonitor {
///     func fleetEvent(_ event: FleetEvent) {
///         if case .fellBack(let reason) = event { alerts.raise("fleet state lost: \(reason)") }
///     }
/// }
/// let fleet = FleetState(.init(endpoint: .tcp(host: "redis.internal"), namespace: "shop-api",
///                              expectedInstances: 20, monitors: [Pager()]))
/// ```
public protocol FleetMonitor: Sendable {
    /// Called once per change.
    func fleetEvent(_ event: FleetEvent)
}

/// A change of where an instance's fleet decisions are made (``FleetMonitor``).
public enum FleetEvent: Sendable, Hashable {
    /// Redis could not be reached (down, refusing, or slower than the
    /// command timeout): the instance decides alone from now on.
    case fellBack(reason: String)
    /// Redis answers again: decisions are the fleet's again.
    case returned
}
