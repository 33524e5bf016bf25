package import HTTPTypes

/// One feature's part in every attempt of a call: the circuit breaker, the
/// download's staging file, the plugins' hooks, the exchange itself. Each
/// does its work and hands the attempt to the next, as an ``Interceptor``
/// does, and the innermost sends it.
///
/// A step exists only where its feature is configured: the steps are chosen
/// and folded into an ``AttemptChain`` once, when a call's settings are
/// resolved (once per client for endpoints that override nothing), so a
/// feature a client does not use costs its calls nothing — not a branch.
/// Their order is ``AttemptSlot``'s.
package protocol AttemptStep: Sendable {
    /// Runs this step's part of `attempt`, usually around `next`.
    /// - Parameters:
    ///   - attempt: The attempt as the steps before left it; a step changes
    ///     what the steps after it see (its number, its options, the request).
    ///   - state: The call.
    ///   - next: The rest of the chain.
    /// - Returns: The response the attempt ends with.
    /// - Throws: The attempt's failure, always a ``CourierError``.
    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
}

/// One attempt as it passes through the steps.
package struct Attempt: Sendable {
    /// The request; steps may change it on its way in (a resumed download asks for a range).
    package var request: OutgoingRequest
    /// The request as the attempt loop was given it — what the response
    /// cache and coalescing saw — before any step changed it.
    package let given: HTTPRequest
    /// The attempt's number, from 1, once its budget step began it; 0 before
    /// (or when the deadline left no time to begin one).
    package var number: Int = 0
    /// What interceptors and plugins see of the call during this attempt.
    package var context: CallContext
    /// What the transport is told: the attempt's timeout, where a download
    /// goes, the limits, progress and cancellation.
    package var options: TransportOptions

    init(_ request: OutgoingRequest, _ state: CallState) {
        self.request = request
        self.given = request.head
        self.context = state.context
        let settings = state.settings
        self.options = TransportOptions(
            timeout: settings.timeout, maxBodySize: settings.maxBodySize,
            maxDownloadSize: settings.maxDownloadSize, progress: state.plan.call.progress,
            cancellation: state.cancellation, idleTimeout: settings.idleTimeout,
            connectTimeout: settings.connectTimeout)
        options.transferControl = state.plan.call.transferControl
        options.maxDownloadExpansion = settings.maxDownloadExpansion
        options.clock = settings.clock
    }
}

/// The steps after the one running: call it to go on.
package struct AttemptNext: Sendable {
    let chain: AttemptChain
    let index: Int

    /// Runs the rest of the chain on `attempt`. (Inlined into each step: a
    /// frame of its own per step would cost every attempt.)
    @inline(__always)
    package nonisolated(nonsending) func callAsFunction(_ attempt: inout Attempt, _ state: CallState)
        async throws(CourierError) -> RawResponse
    {
        try await chain.steps[index].attempt(&attempt, state, AttemptNext(chain: chain, index: index + 1))
    }
}

/// The steps of an attempt, outermost first, folded once: running it costs
/// one call per step and allocates nothing.
final class AttemptChain: Sendable {
    let steps: [any AttemptStep]

    /// The chain of `steps` in ``AttemptSlot`` order; the last must not call `next`.
    init(_ steps: [(slot: AttemptSlot, step: any AttemptStep)]) {
        self.steps = steps.enumerated().sorted { lhs, rhs in
            lhs.element.slot == rhs.element.slot
                ? lhs.offset < rhs.offset : lhs.element.slot.rawValue < rhs.element.slot.rawValue
        }.map(\.element.step)
    }

    /// Runs one attempt of `request` through every step.
    @inline(__always)
    nonisolated(nonsending) func run(_ attempt: inout Attempt, _ state: CallState)
        async throws(CourierError) -> RawResponse
    {
        try await AttemptNext(chain: self, index: 0)(&attempt, state)
    }
}
