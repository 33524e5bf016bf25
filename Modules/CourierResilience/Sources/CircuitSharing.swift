@_spi(Locking) import CourierCore

/// Where a ``CircuitBreaker``'s circuits are shared with other processes
/// (CourierFleet's, on Redis): each closed-circuit outcome is counted for
/// the fleet, and an origin the fleet opened is open here too. Probes stay
/// each instance's own. Package-level: an app makes a shared breaker with
/// CourierFleet's `CircuitBreaker(_:fleet:)`.
package protocol CircuitSharing: Sendable {
    /// How long the fleet still has `origin`'s circuit open; `nil` when it
    /// has not opened it (or cannot say: each instance then decides alone).
    func openFor(_ origin: String) async -> Duration?
    /// An attempt to `origin` through a closed circuit `failed` or not:
    /// counted for the fleet, which opens the circuit for everyone once its
    /// outcomes cross `configuration`'s threshold. Not waited for.
    func record(_ origin: String, failed: Bool, _ configuration: CircuitBreaker.Configuration)
}
