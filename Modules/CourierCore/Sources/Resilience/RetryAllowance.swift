/// What a ``RetryPolicy`` asks before each retry, shared by every call whose
/// policy carries it: CourierResilience's `RetryBudget` keeps it in memory
/// for a process, CourierFleet's `FleetRetryBudget` on a fleet's Redis.
/// Package-level: the policy stores one, and the satellite gives the app
/// its own type to set (`RetryPolicy.budget`, `RetryPolicy.fleetBudget`).
package protocol RetryAllowance: Sendable, CustomStringConvertible {
    /// A call's first attempt began.
    func recordCall()
    /// A retry is due: whether it may go (and counts it when it may). A
    /// shared allowance may ask its store; one in memory answers at once.
    func withdrawRetry() async -> Bool
    /// Calls and retries counted in the current window, for the error that
    /// says why a retry did not go.
    var counts: (calls: Int, retries: Int) { get }
}
