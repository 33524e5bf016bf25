/// Every attempt's first own step (``AttemptSlot/budget``): the call's
/// budget numbers it and gives it its share of the retry deadline, which
/// caps the attempt's total (or is its total); the monitors hear it begin
/// and end.
struct AttemptBudgetStep: AttemptStep {
    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        let settings = state.settings
        let (number, remaining) = try state.budget.begin(
            now: settings.clock.now, deadline: settings.retryPolicy.deadline)
        // The call counts towards the retry budget's share once, at its first attempt.
        if number == 1 { settings.retryPolicy.allowance?.recordCall() }
        attempt.number = number
        attempt.context.attempt = number
        attempt.options.timeout =
            settings.timeout.map { total in remaining.map { min(total, $0) } ?? total } ?? remaining
        state.emit(.attemptStarted(number: number, request: attempt.request.head), attempt: number)
        let result: Result<RawResponse, CourierError>
        do throws(CourierError) {
            result = .success(try await next(&attempt, state))
        } catch {
            result = .failure(error)
        }
        state.emit(.attemptFinished(number: number, result: result), attempt: number)
        // Moved out, not copied: a copy of a response retains every part of it.
        switch consume result {
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }
}

/// Every attempt's check of what came back (``AttemptSlot/validation``):
/// the transport's own resends counted, a response that arrived after the
/// call was cancelled dropped, then status, content type and envelope
/// (``ValidationStage``).
struct AttemptValidationStep: AttemptStep {
    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        var response: RawResponse
        do throws(CourierError) {
            response = try await next(&attempt, state)
        } catch {
            throw state.cancellation.isCancelled ? cancelled(attempt, state) : error
        }
        state.budget.addResends(response.metrics.resends ?? 0)
        // A transport that does not honour the call's cancellation still
        // returns: what it returned after the call was cancelled is dropped.
        if state.cancellation.isCancelled { throw cancelled(attempt, state) }
        try ValidationStage.validate(&response, state, request: attempt.request.head, attempt: attempt.number)
        return response
    }

    private func cancelled(_ attempt: Attempt, _ state: CallState) -> CourierError {
        ErrorMapping.cancelled(
            by: state.cancellation, stage: .transport, request: attempt.request.head, attempt: attempt.number)
    }
}
