import HTTPTypes

/// The attempt loop: the innermost step of the per-call chain. Each `next` a
/// per-call interceptor makes runs it once; every run draws on the call's
/// ``CallBudget``.
///
/// An attempt goes through the call's ``AttemptChain``: the steps its
/// settings chose, in ``AttemptSlot`` order — among them the budget
/// (``AttemptBudgetStep``), validation (``AttemptValidationStep``) and the
/// exchange. A failed attempt goes to the retry policy, which says stop, or
/// wait and go round again.
enum AttemptStage {
    /// Runs attempts until one succeeds or the retry policy stops.
    nonisolated(nonsending) static func run(_ request: OutgoingRequest, _ state: CallState)
        async throws(CourierError) -> RawResponse
    {
        let settings = state.settings
        let chain = state.plan.attemptChain
        let policy = settings.retryPolicy
        let clock = settings.clock
        while true {
            if Task.isCancelled || state.cancellation.isCancelled {
                throw ErrorMapping.cancelled(
                    by: state.cancellation, stage: .transport, request: request.head,
                    attempt: state.budget.attempts)
            }
            var attempt = Attempt(request, state)
            let failure: CourierError
            do throws(CourierError) {
                return try await chain.run(&attempt, state)
            } catch {
                failure = error
            }
            let number = attempt.number
            // Not retried: no attempt could begin (the deadline, a concurrency
            // policy's refusal), or the call was cancelled — by its caller or
            // by a concurrency policy.
            if number == 0 || failure.code == .cancelled || failure.code == .cancelledByPolicy {
                throw failure
            }
            let decision = policy.decide(
                after: failure, attempt: number, method: request.head.method,
                bodyIsReplayable: request.body?.isReplayable ?? true,
                elapsed: policy.deadline == nil ? .zero : state.budget.elapsed(now: clock.now),
                now: clock.date,
                carriesIdempotencyKey: policy.idempotencyKeyField.map { request.head.headerFields[$0] != nil }
                    ?? false)
            if case .retry = decision, let allowance = policy.allowance, await !allowance.withdrawRetry() {
                throw ErrorMapping.stopped(
                    .retryBudgetExhausted, failure: failure, attempt: number, policy: policy)
            }
            switch decision {
            case .retry(let delay):
                state.emit(.retryScheduled(delay: delay, failure: failure), attempt: number)
                do {
                    try await CallCancellation.sleep(for: delay, on: clock, cancellation: state.cancellation)
                } catch {
                    throw ErrorMapping.cancelled(
                        by: state.cancellation, stage: .retry, request: request.head, attempt: number)
                }
            case .stop(let reason):
                throw ErrorMapping.stopped(reason, failure: failure, attempt: number, policy: policy)
            }
        }
    }
}
