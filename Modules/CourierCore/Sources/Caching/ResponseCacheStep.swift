import HTTPTypes

/// `.responseCache`: the cache, innermost in the per-call chain: it sees the
/// request as the per-call interceptors signed it. A stored answer makes no
/// attempt; a stored response delivered first is validated and decoded
/// before the network is asked; whatever the network answers goes back
/// through the cache (a 304 becomes the stored response). A step of a
/// client with a cache, except for streams.
struct ResponseCacheStep: CallTierStep, FollowingPassStep {
    let cache: any ResponseCaching

    /// Before `.identity`: the cache's part in this pass, when it takes one.
    func begin(_ state: inout CallState) throws(CourierError) {
        let settings = state.settings
        let call = CacheCall(
            callID: state.plan.context.callID, route: state.plan.spec.route,
            authenticates: state.plan.spec.authenticates, role: state.plan.call.cacheRole,
            authenticatedPerCall: settings.authenticatesPerCall,
            cookies: settings.cookies,
            skipsReading: state.scope.skipsCacheReading, credentials: settings.credentials)
        let stage = cache.begin(state.plan.spec, call)
        state.scope.cacheStage = stage
        if stage != nil { state.scope.wantsIdentity = true }
    }

    nonisolated(nonsending) func call(_ request: OutgoingRequest, _ state: CallState, _ next: CallTierNext)
        async throws(CourierError) -> RawResponse
    {
        // The cache takes no part in this pass (the endpoint's policy said so).
        guard let stage = state.scope.cacheStage else { return try await next(request, state) }
        var sent = request
        // (A pass with a cache stage always asked for its `.identity`.)
        switch await stage.read(request, identity: state.identity ?? .addsNothing) {
        case .answer(var stored, let refresh):
            state.emit(.cache(.answered(refresh: refresh)))
            stored.cacheOrigin = .storage(refresh: refresh)
            return stored
        case .generated(let response):
            state.emit(.cache(.generated))
            return response
        case .deliverFirst(var stored, let fields):
            state.emit(.cache(.deliveredFirst))
            stored.cacheOrigin = .storage(refresh: false)
            if let deliver = state.scope.deliverEarly, let error = await deliver(stored, state) {
                stage.rejected(error)
            }
            sent.head.headerFields.setAll(fields)
        case .network(let fields):
            state.emit(.cache(.network(revalidating: !fields.isEmpty)))
            sent.head.headerFields.setAll(fields)
        }
        // At most twice: a 304 that names another representation than the
        // stored one is answered by the request again, unconditionally.
        for _ in 0..<2 {
            let result: Result<RawResponse, CourierError>
            do throws(CourierError) {
                result = .success(try await next(sent, state))
            } catch {
                result = .failure(error)
            }
            switch await stage.received(result, sent: sent) {
            case .result(let settled): return try settled.get()
            case .resend(let validators):
                for name in validators { sent.head.headerFields[name] = nil }
            }
        }
        throw CourierError(
            .cache, stage: .cache, message: "the server answered an unconditional request with a 304",
            request: sent.head)
    }
}

extension ResponseCacheStep {
    /// `.cacheFollowUp`, for a pass the cache took part in: a stored answer that no longer
    /// passes validation or decoding is dropped, reported, and the network
    /// asked instead; a model decoded from the network (or a revalidated
    /// response) is offered to the cache; a refresh the cache asked for
    /// starts in the background.
    nonisolated(nonsending) func followUp<Response>(
        _ result: Result<Response, CourierError>, _ outcome: inout CallPipeline.Outcome,
        _ endpoint: Endpoint<Response>, _ state: inout CallState, stored sink: EarlyDeliverySink<Response>?
    ) async -> Result<Response, CourierError> {
        // A stored answer that decoded and wants no refresh (the usual hit) costs no more.
        guard var stage = state.scope.cacheStage, Self.needsSettling(result, outcome) else { return result }
        var result = result
        var answered = Self.storedAnswer(outcome)
        if answered != nil, case .failure(let error) = result, !state.cancellation.isCancelled,
            error.code != .cancelled
        {
            stage.rejected(error)
            await sink?(.failure(ErrorMapping.unusableStored(error)))
            state.scope.skipsCacheReading = true
            let pipeline = CallPipeline()
            outcome = await pipeline.pass(&state)  // .endpointMapping … .process, the network only
            result = pipeline.decode(&outcome, endpoint.serializer, state)  // .decoding
            guard let next = state.scope.cacheStage else { return result }
            stage = next
            answered = nil
        }
        if let refresh = answered {
            if refresh, case .success = result {
                let (services, plugins) = (state.plan.call.services, state.plan.call.plugins)
                stage.refreshInBackground { () async -> CourierError? in
                    if case .failure(let error) = await services.run(
                        endpoint, plugins: plugins, progress: nil, role: .backgroundRefresh, stored: nil)
                    {
                        return error
                    }
                    return nil
                }
            }
        } else if case .success(let model) = result {
            stage.decoded(model)
        }
        return result
    }

    /// Whether `.cacheFollowUp` has anything to do: not for a stored answer that decoded
    /// and wants no refresh (the usual hit), which then costs no more.
    static func needsSettling<Response>(
        _ result: Result<Response, CourierError>, _ outcome: CallPipeline.Outcome
    ) -> Bool {
        guard case .success = result, storedAnswer(outcome) == false else { return true }
        return false
    }

    /// Whether the pass's response is one the cache answered with from
    /// storage — and if so, whether it asked for a refresh — as the stage
    /// stamped it; `nil` for any other.
    static func storedAnswer(_ outcome: CallPipeline.Outcome) -> Bool? {
        let response: RawResponse?
        switch outcome {
        case .success(let value): response = value
        case .failure(let error): response = error.response
        }
        guard case .storage(let refresh) = response?.cacheOrigin else { return nil }
        return refresh
    }
}
