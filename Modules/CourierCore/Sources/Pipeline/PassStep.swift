/// A feature's part in a call beyond one attempt: what it joins when a pass
/// begins, what it settles after the pass's model is decoded, and what it
/// lets go of when the call ends — a concurrency group's membership, the
/// response cache's part in the pass. Chosen with the settings, like the
/// attempt's steps (``CallTierChain/passSteps``): a client that uses none
/// of these features runs none of them.
///
/// What a step keeps for one call lives in the call's ``CallScope``; the
/// pipeline hands the state over and names no feature. Package-level: a
/// satellite contributes its own through ``ClientExtension``.
package protocol PassStep: Sendable {
    /// After `.encoding`, before `.identity`: joins what the feature keeps
    /// for this pass (``CallScope``). A step that holds something until the
    /// call ends appends itself to ``CallScope/joined``.
    /// - Throws: Why the call cannot go on (a policy without a group).
    func begin(_ state: inout CallState) throws(CourierError)

    /// The call ended (or a later pass's settings no longer choose this
    /// step): lets go of what ``begin(_:)`` joined, and forgets it.
    func end(_ scope: inout CallScope)
}

extension PassStep {
    package func end(_ scope: inout CallScope) {}
}

/// A pass step that settles the pass's decoded result (the response
/// cache's): the pipeline asks it only when it asked to
/// (``CallScope/followsUp``).
protocol FollowingPassStep: PassStep {
    /// `.cacheFollowUp`, after `.decoding`, for a step that asked for it
    /// (``CallScope/followsUp``): may replace the result, and may run
    /// another pass (`pipeline.pass`) to get it.
    /// - Parameters:
    ///   - result: The decoded result.
    ///   - outcome: The pass's outcome it was decoded from.
    ///   - endpoint: The call's endpoint.
    ///   - state: The call.
    ///   - stored: Where deliveries before the last go, for a caller that takes every one.
    /// - Returns: The result the call goes on with.
    nonisolated(nonsending) func followUp<Response>(
        _ result: Result<Response, CourierError>, _ outcome: inout CallPipeline.Outcome,
        _ endpoint: Endpoint<Response>, _ state: inout CallState, stored: EarlyDeliverySink<Response>?
    ) async -> Result<Response, CourierError>
}

extension CallState {
    /// Before a pass's `.identity`: ends what an earlier pass joined and this
    /// pass's steps no longer choose (a replay to an endpoint without the
    /// group), then each step begins.
    mutating func beginPass(_ steps: [any PassStep]) throws(CourierError) {
        if !scope.joined.isEmpty {
            let chosen = Set(steps.map { ObjectIdentifier(type(of: $0)) })
            let kept = scope.joined.filter { chosen.contains(ObjectIdentifier(type(of: $0))) }
            if kept.count != scope.joined.count {
                for step in scope.joined where !chosen.contains(ObjectIdentifier(type(of: step))) {
                    step.end(&scope)
                }
                scope.joined = kept
            }
        }
        for step in steps { try step.begin(&self) }
    }

    /// The call ended: every step that joined something lets go of it.
    func endCall() {
        guard !scope.joined.isEmpty else { return }
        var scope = self.scope
        for step in scope.joined { step.end(&scope) }
    }
}

/// Hands a caller that takes every delivery the ones made before the call's
/// own result: a stored response the cache delivers first (validated and
/// decoded), or the `.cache` error that says why it could not be used.
package typealias EarlyDeliverySink<Response: Sendable> =
    @Sendable (Result<Reply<Response>, CourierError>) async -> Void
