/// `.responseHandlers` (``CallStage``): what the endpoint's handlers decide
/// after decoding — deliver, or run the call again after a wait.
extension CallPipeline {
    /// What the response handlers decided.
    enum Decision<Response: Sendable> {
        case deliver(Result<Response, CourierError>)
        case replay(Endpoint<Response>, after: Duration)
    }

    /// `.responseHandlers`, as a chain: each sees the result the one before
    /// delivered; the first that asks to run the call again decides.
    nonisolated(nonsending) func respond<Response>(
        _ result: Result<Response, CourierError>, _ response: RawResponse?, _ endpoint: Endpoint<Response>,
        _ state: CallState
    ) async -> Decision<Response> {
        var result = result
        let context = ResponseContext(call: state.context, response: response, replays: state.context.replay)
        for handler in endpoint.responseHandlers {
            let action: ResponseAction<Response>
            do {
                action = try await handler.body(result, context)
            } catch {
                return .deliver(
                    .failure(
                        ErrorMapping.raised(
                            error, by: handler, code: .interceptor, stage: .responseInterception,
                            what: "response handler")))
            }
            switch action {
            case .deliver(let delivered): result = delivered
            case .retry(let delay): return .replay(endpoint, after: delay)
            case .resend(let changed, let delay): return .replay(changed, after: delay)
            }
        }
        return .deliver(result)
    }

    /// Before a replay: the limit on replays, then the wait.
    /// - Returns: Why the call stops instead, or `nil` to replay.
    nonisolated(nonsending) func waitToReplay(
        _ delay: Duration, _ response: RawResponse?, _ outcome: Outcome, _ state: CallState
    )
        async -> CourierError?
    {
        let limit = state.settings.maxReplays
        guard state.context.replay < limit else {
            return CourierError(
                .retriesExhausted, stage: .responseInterception,
                message: "response handlers asked to run the call again more than \(limit) times",
                response: response, underlying: outcome.failure)
        }
        do {
            try await CallCancellation.sleep(
                for: delay, on: state.settings.clock, cancellation: state.cancellation)
            return nil
        } catch {
            return ErrorMapping.cancelled(
                by: state.cancellation, stage: .responseInterception, request: nil, attempt: 0)
        }
    }
}
