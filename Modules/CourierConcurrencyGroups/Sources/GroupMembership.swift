@_spi(Locking) import CourierCore

/// A call's place in its ``ConcurrencyGroup``: joined when a pass first
/// knows its group (once its request is encoded, ``GroupMembershipStep``),
/// left when the call ends. Every attempt of the call goes through
/// ``admit(_:attempt:)`` and ``finish()``. Kept in the call's scope.
struct GroupMembership: Sendable {
    let group: ConcurrencyGroup
    let ticket: ConcurrencyGroupState.Ticket
    /// The policy of the pass that joined (or last kept) the group.
    var policy: ConcurrencyPolicy

    /// Joins `group` for the call whose cancellation is `cancellation` and
    /// whose endpoint carries `tags`.
    init(
        _ group: ConcurrencyGroup, _ cancellation: CallCancellation, tags: Set<String>,
        policy: ConcurrencyPolicy
    ) {
        self.group = group
        self.ticket = group.join(cancellation, tags: tags)
        self.policy = policy
    }

    /// Waits until the attempt may run under the pass's policy, and tells
    /// the monitors what the policy decided.
    /// - Throws: The policy's refusal, or cancellation while queued.
    func admit(_ state: CallState, attempt: Int) async throws(CourierError) {
        do throws(CourierError) {
            let decision = try await group.admit(ticket, policy: policy, cancellation: state.cancellation)
            state.emit(.policy(decision), attempt: attempt)
        } catch {
            state.emit(.policy(.refused(error)), attempt: attempt)
            throw error
        }
    }

    /// The attempt ended.
    func finish() { group.finish(ticket) }

    /// The call ended.
    func leave() { group.leave(ticket) }
}

/// The call's membership in its ``ConcurrencyGroup`` (a ``PassStep`` of
/// settings that name a group or a policy): joined when a pass knows its
/// group, left when the call ends — or when a later pass's endpoint names
/// another group or none. Its attempts are admitted by
/// ``GroupAdmissionStep``.
struct GroupMembershipStep: PassStep {
    /// The endpoint's group, or the client's.
    let group: ConcurrencyGroup?
    /// The endpoint's policy; `nil` is ``ConcurrencyPolicy/default``.
    let policy: ConcurrencyPolicy?

    /// Joins the pass's group, leaving another one a previous pass joined;
    /// a policy without a group is a mistake the call reports.
    func begin(_ state: inout CallState) throws(CourierError) {
        guard let group else {
            guard let policy else { return }
            throw CourierError(
                .invalidRequest, stage: .build,
                message:
                    "\(state.context.name) has concurrency policy \(policy) but neither it nor the client names a ConcurrencyGroup"
            )
        }
        let current = state.scope[held: GroupMembership.self]
        if let current, current.group === group {
            state.scope[held: GroupMembership.self]?.policy = policy ?? .default
            return
        }
        current?.leave()
        state.scope[held: GroupMembership.self] = GroupMembership(
            group, state.cancellation, tags: state.spec.tags, policy: policy ?? .default)
        if current == nil { state.scope.joined.append(self) }
    }

    func end(_ scope: inout CallScope) {
        scope[held: GroupMembership.self]?.leave()
        scope[held: GroupMembership.self] = nil
    }
}
