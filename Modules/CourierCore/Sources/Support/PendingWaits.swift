/// Waits that may end before they begin: the table a lock-holding owner
/// (CourierConcurrencyGroups' `ConcurrencyGroup`, CourierAuthentication's `Authenticator`, the client's in-flight calls)
/// keeps of tasks waiting for something it decides.
///
/// A wait is opened under the owner's lock when the decision "you wait" is
/// made; the waiting task then suspends on a continuation, which it hands
/// over under the lock again. Whoever ends the wait — admitted, refused,
/// cancelled — may come before or after that: ``end(_:with:)`` returns the
/// continuation to resume (outside the lock) when the task has suspended,
/// or keeps the outcome for ``suspend(_:_:)`` to return at once when it has
/// not. The first outcome wins; every wait is resumed exactly once.
package struct PendingWaits<Outcome: Sendable>: Sendable {
    private struct Slot: Sendable {
        var continuation: CheckedContinuation<Outcome, Never>?
        var outcome: Outcome?
    }

    private var slots: [UInt64: Slot] = [:]

    /// No waits.
    package init() {}

    /// Opens the wait `id` (unique among the open ones).
    package mutating func open(_ id: UInt64) {
        slots[id] = Slot()
    }

    /// Whether `id` is open and has not been ended.
    package func isPending(_ id: UInt64) -> Bool {
        guard let slot = slots[id] else { return false }
        return slot.outcome == nil
    }

    /// The waiting task hands over its continuation: returns the outcome
    /// that came first (the wait is closed; resume at once), or `nil` (the
    /// continuation is kept for ``end(_:with:)``).
    /// - Parameters:
    ///   - id: The wait's id.
    ///   - continuation: The waiting task's continuation.
    ///   - missing: The outcome for a wait that is not open (ended and
    ///     closed by a path that should have kept its outcome: not expected).
    /// - Returns: The outcome to resume with at once, or `nil` when it is kept.
    package mutating func suspend(
        _ id: UInt64, _ continuation: CheckedContinuation<Outcome, Never>, missing: @autoclosure () -> Outcome
    ) -> Outcome? {
        guard let slot = slots[id] else { return missing() }
        if let outcome = slot.outcome {
            slots[id] = nil
            return outcome
        }
        slots[id]?.continuation = continuation
        return nil
    }

    /// Ends the wait `id` with `outcome` unless it has ended already.
    /// - Returns: The continuation to resume with `outcome` outside the
    ///   lock, or `nil` when there is nothing to resume now (not suspended
    ///   yet — it will find the outcome — or already ended).
    package mutating func end(_ id: UInt64, with outcome: Outcome) -> CheckedContinuation<Outcome, Never>? {
        guard let slot = slots[id], slot.outcome == nil else { return nil }
        guard let continuation = slot.continuation else {
            slots[id]?.outcome = outcome
            return nil
        }
        slots[id] = nil
        return continuation
    }

    /// Forgets the wait `id` (its task will not suspend on it).
    package mutating func close(_ id: UInt64) {
        slots[id] = nil
    }
}
