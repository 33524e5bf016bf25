import HTTPTypes

/// One call, stage by stage: ``run(_:_:stored:)`` and ``pass(_:)`` read top
/// to bottom in the order of ``CallStage``, whose cases the comments here
/// name (`.encoding`, `.attemptLoop`, …). ``pass(_:)`` runs the stages from
/// `.endpointMapping` to `.process` once; ``run(_:_:stored:)`` adds
/// `.decoding`, `.cacheFollowUp` when a step asked for it, `.responseHandlers`
/// (which may run another pass) and `.finish`.
///
/// Each stage takes the ``CallState`` (`inout`: taken and given back
/// without a copy) and nothing else carries state between stages.
///
/// The stages' async functions (here, in ``AttemptStage``, ``HopStage``
/// and the steps') are `nonisolated(nonsending)`: they run
/// on the executor of the public call that reached them — the global one,
/// or CurlTransport's thread in executor mode — instead of each hopping to
/// the global executor on entry. The public entry points (`APIClient.send`
/// and its siblings) are ordinary nonisolated async functions, so a call
/// made on the main actor still leaves it once, at the top.
struct CallPipeline: Sendable {
    /// What a pass produced, before decoding.
    typealias Outcome = Result<RawResponse, CourierError>
    /// What the call ends with.
    typealias Ending<Response: Sendable> = Result<Reply<Response>, CourierError>

    /// Runs the call to its end: a pass, decoding, and — when the endpoint has
    /// response handlers — their decision and any replays.
    /// - Parameters:
    ///   - endpoint: The call's endpoint.
    ///   - start: The call's state before its first pass.
    ///   - stored: For a caller that takes every delivery: where deliveries
    ///     before the call's own result go (a stored response delivered first).
    /// - Returns: The reply, or the error the call ended with.
    nonisolated(nonsending) func run<Response>(
        _ endpoint: Endpoint<Response>, _ start: CallState, stored: EarlyDeliverySink<Response>? = nil
    ) async
        -> Ending<Response>
    {
        var state = start
        // Not `stored.map`: Optional.map over a closure type looks the
        // function type's metadata up at run time on every call.
        if let stored { state.scope.deliverEarly = Self.earlyDeliveries(endpoint.serializer, stored) }
        defer { state.endCall() }
        var outcome = await pass(&state)  // .endpointMapping … .process
        guard !endpoint.responseHandlers.isEmpty || state.scope.followsUp else {
            return deliver(outcome, endpoint.serializer, state)  // .decoding, .finish
        }
        var result = decode(&outcome, endpoint.serializer, state)  // .decoding
        result = await followUp(result, &outcome, endpoint, &state, stored: stored)  // .cacheFollowUp
        guard !endpoint.responseHandlers.isEmpty else {
            return finish(result, Self.response(of: result, outcome), state)  // .finish
        }
        return await handle(result, outcome, endpoint, &state, stored: stored)  // .responseHandlers, .finish
    }

    /// `.decoding` and `.finish` without response handlers (the usual case): the model, and
    /// the reply built around the response without copying it again.
    @inline(__always)
    private func deliver<Response>(
        _ outcome: consuming Outcome, _ serializer: ResponseSerializer<Response>, _ state: CallState
    ) -> Ending<Response> {
        validate(&outcome, state)  // a no-op unless `process` replaced the response
        switch consume outcome {
        case .failure(let error):
            return .failure(completed(error, state))
        case .success(var response):
            let input = DecodingInput(
                decoder: state.settings.decoder, envelope: state.plan.envelope,
                envelopeHead: response.validation?.envelope, transformer: state.plan.spec.transformer)
            let model: Response
            do {
                model = try serializer.serialize(response, input)
            } catch {
                var failure = ErrorMapping.decoding(error)
                failure.response = failure.response ?? response
                failure = completed(failure, state)
                state.emit(.decodingFailed(failure))
                return .failure(failure)
            }
            if state.cancellation.isCancelled { return .failure(cancelledLate(state)) }
            response.validation = nil
            return .success(
                Reply(
                    model: model, response: response, attempts: state.budget.attempts,
                    transportResends: state.budget.resends))
        }
    }

    /// `.responseHandlers` and `.finish` for an endpoint with response
    /// handlers: their decision, then a replay (another pass) or the end.
    nonisolated(nonsending) private func handle<Response>(
        _ first: Result<Response, CourierError>, _ firstOutcome: Outcome, _ endpoint: Endpoint<Response>,
        _ state: inout CallState, stored: EarlyDeliverySink<Response>?
    ) async -> Ending<Response> {
        var (result, outcome, endpoint) = (first, firstOutcome, endpoint)
        while true {
            let response = Self.response(of: result, outcome)
            switch await respond(result, response, endpoint, state) {  // .responseHandlers
            case .deliver(let delivered):
                return finish(delivered, response, state)  // .finish
            case .replay(let next, let delay):
                if let stop = await waitToReplay(delay, response, outcome, state) {
                    return finish(.failure(stop), response, state)
                }
                endpoint = next
                state.plan = state.plan.replaying(next.spec)
                state.request = nil
                outcome = await pass(&state)  // .endpointMapping … .process
                result = decode(&outcome, endpoint.serializer, state)  // .decoding
                result = await followUp(result, &outcome, endpoint, &state, stored: stored)  // .cacheFollowUp
            }
        }
    }

    /// The stages from `.endpointMapping` to `.process`, once.
    nonisolated(nonsending) func pass(_ state: inout CallState) async -> Outcome {
        var outcome: Outcome
        state.emit(.passStarted)
        do throws(CourierError) {
            // (An empty stage is skipped here rather than inside: an async
            // call costs a frame even when it returns at once.)
            if !state.settings.mapping.steps.isEmpty { try await mapEndpoint(&state) }  // .endpointMapping
            if !state.settings.parameterInterceptors.isEmpty {
                try await interceptParameters(&state)  // .parameterInterceptors
            }
            let request = try encode(state)  // .encoding
            state.request = request
            let tier = state.plan.callTier
            // The call-scoped features' part in the pass (``PassStep``).
            state.scope.wantsIdentity = false
            if !tier.passSteps.isEmpty || !state.scope.joined.isEmpty { try state.beginPass(tier.passSteps) }
            if state.scope.wantsIdentity {
                // .identity: whose the response is, for the steps that key on it.
                state.identity = try await PassIdentity.of(state.settings, state.context)
            }
            outcome = await callChain(request, state)  // .callInterceptors, .responseCache, .attemptLoop
        } catch {
            outcome = .failure(error)
        }
        validate(&outcome, state)  // .validation
        // .process (a stream's runs when the stream ends: StreamSession)
        if state.plan.processesAtPassEnd { await process(&outcome, state) }
        state.emit(.passFinished(outcome))
        return outcome
    }

    // MARK: - Stages

    /// `.cacheFollowUp`, when a step of the pass asked for it (``CallScope/followsUp``).
    nonisolated(nonsending) private func followUp<Response>(
        _ result: Result<Response, CourierError>, _ outcome: inout Outcome, _ endpoint: Endpoint<Response>,
        _ state: inout CallState, stored: EarlyDeliverySink<Response>?
    ) async -> Result<Response, CourierError> {
        guard state.scope.followsUp else { return result }
        var result = result
        for case let step as any FollowingPassStep in state.plan.callTier.passSteps {
            result = await step.followUp(result, &outcome, endpoint, &state, stored: stored)
        }
        return result
    }

    /// `.endpointMapping`: the client's endpoint mapping, step by step; the settings and the
    /// context follow the mapped spec.
    nonisolated(nonsending) private func mapEndpoint(_ state: inout CallState) async throws(CourierError) {
        let steps = state.settings.mapping.steps
        guard !steps.isEmpty else { return }
        var spec = state.plan.spec
        for step in steps {
            do {
                spec = try await step.transform(spec)
            } catch {
                throw ErrorMapping.raised(
                    error, by: step, code: .invalidRequest, stage: .build, what: "endpoint mapping")
            }
        }
        state.plan = state.plan.mapped(spec)
    }

    /// `.parameterInterceptors`, client's then the endpoint's: the query, then
    /// a form or JSON body's parameters.
    nonisolated(nonsending) private func interceptParameters(_ state: inout CallState)
        async throws(CourierError)
    {
        let interceptors = state.settings.parameterInterceptors
        guard !interceptors.isEmpty else { return }
        var spec = state.plan.spec
        let context = state.context
        for interceptor in interceptors {
            spec.query = try await Self.intercepting(spec.query, .query, interceptor, context)
        }
        if var parameters = spec.content.parameters {
            for interceptor in interceptors {
                parameters = try await Self.intercepting(parameters, .body, interceptor, context)
            }
            spec.content.parameters = parameters
        }
        state.plan = state.plan.intercepted(spec)
    }

    nonisolated(nonsending) private static func intercepting(
        _ parameters: Parameters, _ location: ParameterLocation, _ interceptor: ParameterInterceptor,
        _ context: CallContext
    ) async throws(CourierError) -> Parameters {
        do {
            return try await interceptor.intercept(parameters, at: location, context: context)
        } catch {
            throw ErrorMapping.raised(
                error, by: interceptor, code: .invalidRequest, stage: .build, what: "parameter interceptor")
        }
    }

    /// `.encoding`: the request head and body.
    private func encode(_ state: CallState) throws(CourierError) -> OutgoingRequest {
        try RequestBuilder.build(
            state.plan.spec, environment: state.plan.call.environment, state.settings.encoding)
    }

    /// `.callInterceptors`, `.responseCache` and `.attemptLoop`: per-call
    /// interceptors around the plan's call-tier steps around the attempt loop.
    nonisolated(nonsending) private func callChain(_ request: OutgoingRequest, _ state: CallState) async
        -> Outcome
    {
        let interceptors = state.settings.callInterceptors
        guard !interceptors.isEmpty else {
            do throws(CourierError) {
                return .success(try await Self.innermost(request, state))
            } catch {
                return .failure(error)
            }
        }
        let chain = InterceptorChain.fold(interceptors, context: state.context) { request in
            try await Self.innermost(request, state)
        }
        do {
            return .success(try await chain(request))
        } catch {
            return .failure(ErrorMapping.courier(error))
        }
    }

    /// The end of the per-call chain: the plan's call-tier steps
    /// (``CallTierStep``) around the attempt loop.
    @inline(__always)
    nonisolated(nonsending) private static func innermost(_ request: OutgoingRequest, _ state: CallState)
        async throws(CourierError) -> RawResponse
    {
        try await state.plan.callTier.run(request, state)
    }

    /// `.validation` of the chain's response: a no-op for one this call's
    /// attempt validated and the chain passed back unchanged.
    private func validate(_ outcome: inout Outcome, _ state: CallState) {
        // Taken out and put back (moves, not copies: a copy of a response
        // retains every part of it, and this runs twice per call).
        switch consume outcome {
        case .failure(let error):
            outcome = .failure(error)
        case .success(var response):
            do throws(CourierError) {
                try ValidationStage.validate(
                    &response, state, request: state.request?.head, attempt: state.budget.attempts)
                outcome = .success(response)
            } catch {
                outcome = .failure(error)
            }
        }
    }

    /// `.process`: plugins' `process`, in order, once per pass.
    nonisolated(nonsending) private func process(_ outcome: inout Outcome, _ state: CallState) async {
        await PluginProcessing.run(state.settings.plugins, &outcome, state.context)
    }

    /// `.decoding`: the model, from a validated response only.
    func decode<Response>(
        _ outcome: inout Outcome, _ serializer: ResponseSerializer<Response>, _ state: CallState
    ) -> Result<Response, CourierError> {
        validate(&outcome, state)  // a no-op unless `process` replaced the response
        switch outcome {
        case .failure(let error):
            return .failure(error)
        case .success(let response):
            let settings = state.settings
            let input = DecodingInput(
                decoder: settings.decoder, envelope: state.plan.envelope,
                envelopeHead: response.validation?.envelope, transformer: state.plan.spec.transformer)
            do {
                return .success(try serializer.serialize(response, input))
            } catch {
                var failure = ErrorMapping.decoding(error)
                failure.response = failure.response ?? response
                state.emit(.decodingFailed(completed(failure, state)))
                return .failure(failure)
            }
        }
    }

    /// `.finish`: the reply, or the error with its context completed: the request as
    /// built, the attempt count when the failure came after the attempts.
    /// Validation stamps (which may hold a decoder's parse) are dropped.
    private func finish<Response>(
        _ result: Result<Response, CourierError>, _ response: RawResponse?, _ state: CallState
    ) -> Ending<Response> {
        switch result {
        case .success(let model):
            if state.cancellation.isCancelled { return .failure(cancelledLate(state)) }
            var response = response
            response?.validation = nil
            return .success(
                Reply(
                    model: model, response: response, attempts: state.budget.attempts,
                    transportResends: state.budget.resends))
        case .failure(let error):
            return .failure(completed(error, state))
        }
    }

    /// A failure with its context completed (see ``finish(_:_:_:)``).
    func completed(_ error: CourierError, _ state: CallState) -> CourierError {
        if state.cancellation.isCancelled, error.code != .cancelled, error.code != .cancelledByPolicy {
            return cancelledLate(state)
        }
        var error = error
        error.request = error.request ?? state.request?.head
        if error.attempt == 0 { error.attempt = state.budget.attempts }
        error.response?.validation = nil
        return error
    }

    /// A call cancelled from outside after its last network step: it still
    /// ends cancelled.
    private func cancelledLate(_ state: CallState) -> CourierError {
        if state.cancellation.reason != nil {
            return ErrorMapping.cancelled(
                by: state.cancellation, stage: .decoding, request: state.request?.head,
                attempt: state.budget.attempts)
        }
        return CourierError(
            .cancelled, stage: .decoding, message: "the call was cancelled after its response arrived",
            request: state.request?.head, attempt: state.budget.attempts)
    }

    /// What ``CallScope/deliverEarly`` does for `serializer`'s model:
    /// `.validation` and `.decoding` of a response delivered before the
    /// call's own result, then the sink.
    /// - Returns: A closure returning the failure that made such a response
    ///   unusable (the sink had it, as ``ErrorMapping/unusableStored(_:)``), or `nil`.
    static func earlyDeliveries<Response>(
        _ serializer: ResponseSerializer<Response>, _ sink: @escaping EarlyDeliverySink<Response>
    ) -> @Sendable (RawResponse, CallState) async -> CourierError? {
        { early, state in
            var outcome: Outcome = .success(early)
            switch CallPipeline().decode(&outcome, serializer, state) {
            case .success(let model):
                var response = try? outcome.get()
                response?.validation = nil
                await sink(.success(Reply(model: model, response: response, attempts: 0)))
                return nil
            case .failure(let error):
                await sink(.failure(ErrorMapping.unusableStored(error)))
                return error
            }
        }
    }

    /// The response a result came from: the decoded one, or the one a failure carries.
    private static func response<Response>(of result: Result<Response, CourierError>, _ outcome: Outcome)
        -> RawResponse?
    {
        switch (result, outcome) {
        case (.failure(let error), _): error.response
        case (.success, .success(let response)): response
        case (.success, .failure): nil
        }
    }
}

extension Result {
    /// The error of a failure, `nil` for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
