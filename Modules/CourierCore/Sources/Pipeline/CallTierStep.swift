/// A step at the end of the per-call chain, inside the per-call
/// interceptors and around the attempt loop: the response cache's read and
/// write (``CallStage/responseCache``), coalescing with identical calls in
/// flight, then the attempt loop itself. Chosen and folded once, when the
/// settings are resolved: a client without a cache, an endpoint that does
/// not coalesce and every stream have neither step.
protocol CallTierStep: Sendable {
    /// Runs this step's part of the call, usually around `next`.
    /// - Parameters:
    ///   - request: The request as the per-call interceptors left it.
    ///   - state: The call.
    ///   - next: The rest of the chain.
    /// - Returns: The response the attempts (or the step) ended with.
    /// - Throws: The call's failure.
    nonisolated(nonsending) func call(_ request: OutgoingRequest, _ state: CallState, _ next: CallTierNext)
        async throws(CourierError) -> RawResponse
}

/// The call-tier steps after the one running.
struct CallTierNext: Sendable {
    let chain: CallTierChain
    let index: Int

    /// Runs the rest of the chain on `request`.
    @inline(__always)
    nonisolated(nonsending) func callAsFunction(_ request: OutgoingRequest, _ state: CallState)
        async throws(CourierError) -> RawResponse
    {
        try await chain.steps[index].call(request, state, CallTierNext(chain: chain, index: index + 1))
    }
}

/// The call tier's steps, outermost first, ending with the attempt loop;
/// and the call-scoped features' ``PassStep``s, in the order they begin.
final class CallTierChain: Sendable {
    let steps: [any CallTierStep]
    let passSteps: [any PassStep]

    init(_ steps: [any CallTierStep], passSteps: [any PassStep] = []) {
        self.steps = steps + [AttemptLoopStep()]
        self.passSteps = passSteps
    }

    /// Runs `request` through every step.
    @inline(__always)
    nonisolated(nonsending) func run(_ request: OutgoingRequest, _ state: CallState)
        async throws(CourierError) -> RawResponse
    {
        try await CallTierNext(chain: self, index: 0)(request, state)
    }
}

/// The innermost call-tier step: the attempt loop (``AttemptStage``).
struct AttemptLoopStep: CallTierStep {
    nonisolated(nonsending) func call(_ request: OutgoingRequest, _ state: CallState, _ next: CallTierNext)
        async throws(CourierError) -> RawResponse
    {
        try await AttemptStage.run(request, state)
    }
}
