import HTTPTypes

/// Hands a caller that takes every delivery the ones a response cache makes
/// before the call's own result: a stored response (validated and decoded),
/// or the `.cache` error that says why a stored one could not be used.
package typealias StoredDeliverySink<Response: Sendable> =
    @Sendable (Result<Reply<Response>, CourierError>) async -> Void

extension CallPipeline {
    /// Before `.callInterceptors`: the cache's part in this pass, when the client has a cache
    /// and it takes one.
    static func beginCache(_ cache: any ResponseCaching, _ state: inout CallState) {
        let settings = state.settings
        let call = CacheCall(
            callID: state.plan.context.callID, route: state.plan.spec.route,
            authenticates: state.plan.spec.authenticates, role: state.plan.call.cacheRole,
            authenticatedPerCall: settings.authenticatesPerCall,
            cookies: settings.cookies,
            skipsReading: state.skipsCacheReading, credentials: settings.credentials)
        state.cacheStage = cache.begin(state.plan.spec, call)
    }

}

/// `.responseCache`: the cache, innermost in the per-call chain: it sees the
/// request as the per-call interceptors signed it. A stored answer makes no
/// attempt; a stored response delivered first is validated and decoded
/// before the network is asked; whatever the network answers goes back
/// through the cache (a 304 becomes the stored response). A step of a
/// client with a cache, except for streams.
struct ResponseCacheStep: CallTierStep {
    nonisolated(nonsending) func call(_ request: OutgoingRequest, _ state: CallState, _ next: CallTierNext)
        async throws(CourierError) -> RawResponse
    {
        // The cache takes no part in this pass (the endpoint's policy said so).
        guard let stage = state.cacheStage else { return try await next(request, state) }
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
            if let deliver = state.deliverStored { _ = await deliver(stored, state) }
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

extension CallPipeline {

    /// `.cacheFollowUp`, for a pass the cache took part in: a stored answer that no longer
    /// passes validation or decoding is dropped, reported, and the network
    /// asked instead; a model decoded from the network (or a revalidated
    /// response) is offered to the cache; a refresh the cache asked for
    /// starts in the background.
    nonisolated(nonsending) func settleCache<Response>(
        _ result: Result<Response, CourierError>, _ outcome: inout Outcome, _ endpoint: Endpoint<Response>,
        _ state: inout CallState, stored sink: StoredDeliverySink<Response>?
    ) async -> Result<Response, CourierError> {
        guard var stage = state.cacheStage else { return result }
        var result = result
        var answered = Self.storedAnswer(outcome)
        if answered != nil, case .failure(let error) = result, !state.cancellation.isCancelled,
            error.code != .cancelled
        {
            stage.rejected(error)
            await sink?(.failure(Self.unusable(error)))
            state.skipsCacheReading = true
            outcome = await pass(&state)  // .endpointMapping … .process, the network only
            result = decode(&outcome, endpoint.serializer, state)  // .decoding
            guard let next = state.cacheStage else { return result }
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
    static func needsSettling<Response>(_ result: Result<Response, CourierError>, _ outcome: Outcome) -> Bool
    {
        guard case .success = result, storedAnswer(outcome) == false else { return true }
        return false
    }

    /// Whether the pass's response is one the cache answered with from
    /// storage — and if so, whether it asked for a refresh — as the stage
    /// stamped it; `nil` for any other.
    static func storedAnswer(_ outcome: Outcome) -> Bool? {
        let response: RawResponse?
        switch outcome {
        case .success(let value): response = value
        case .failure(let error): response = error.response
        }
        guard case .storage(let refresh) = response?.cacheOrigin else { return nil }
        return refresh
    }

    /// What ``CallState/deliverStored`` does for `serializer`'s model:
    /// `.validation` and `.decoding` of the stored response, then the
    /// sink; a stored response that fails them is dropped and reported.
    static func storedDeliveries<Response>(
        _ serializer: ResponseSerializer<Response>, _ sink: @escaping StoredDeliverySink<Response>
    ) -> @Sendable (RawResponse, CallState) async -> Bool {
        { stored, state in
            var outcome: Outcome = .success(stored)
            let pipeline = CallPipeline()
            switch pipeline.decode(&outcome, serializer, state) {
            case .success(let model):
                var response = try? outcome.get()
                response?.validation = nil
                await sink(.success(Reply(model: model, response: response, attempts: 0)))
                return true
            case .failure(let error):
                state.cacheStage?.rejected(error)
                await sink(.failure(unusable(error)))
                return false
            }
        }
    }

    /// The `.cache` error for a stored response that failed `error`.
    static func unusable(_ error: CourierError) -> CourierError {
        var response = error.response
        response?.validation = nil
        return CourierError(
            .cache, stage: .cache, message: "a stored response could not be used (\(error.message))",
            request: error.request, response: response, underlying: error)
    }
}
