import HTTPTypes

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

/// The call tier's steps, outermost first, ending with the attempt loop.
final class CallTierChain: Sendable {
    let steps: [any CallTierStep]
    /// Whether a response cache takes part (its read needs to know whose the
    /// response is before the per-call interceptors run: ``CallStage/identity``).
    let caches: Bool
    /// The coalescing its coalescing step applies, if it has one.
    let coalescing: Coalescing?

    init(_ steps: [any CallTierStep], caches: Bool = false, coalescing: Coalescing? = nil) {
        self.steps = steps + [AttemptLoopStep()]
        self.caches = caches
        self.coalescing = coalescing
    }

    /// Whether a call of `method` may share its exchange.
    func mayCoalesce(_ method: HTTPRequest.Method) -> Bool { coalescing?.applies(to: method) ?? false }

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
