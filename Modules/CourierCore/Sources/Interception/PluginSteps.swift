import HTTPTypes

/// Plugins' `prepare`, in order, on every attempt
/// (``AttemptSlot/pluginPreparation``): each may change the head or veto
/// the attempt; in a shared pass each sees what it declared
/// (``CallContext/declaredCredential``). The plugins' context carries the
/// body the attempt sends from here on.
struct PluginPreparationStep: AttemptStep {
    let plugins: [any Plugin]
    /// Where the plugins' declarations start in the pass's identity (after
    /// the per-attempt interceptors').
    let declarationOffset: Int

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        try await Self.prepare(&attempt, state, plugins, declarationOffset)
        return try await next(&attempt, state)
    }

    /// Every plugin's `prepare`, in order, on `attempt`'s head.
    nonisolated(nonsending) static func prepare(
        _ attempt: inout Attempt, _ state: CallState, _ plugins: [any Plugin], _ declarationOffset: Int
    ) async throws(CourierError) {
        attempt.context.requestBody = attempt.request.body
        var head = attempt.request.head
        let identity = state.identity
        for (index, plugin) in plugins.enumerated() {
            do {
                if let declared = identity?.declaration(at: declarationOffset + index) {
                    head = try await DeclaredCredential.$current.withValue(declared) {
                        [head, context = attempt.context] in
                        try await plugin.prepare(head, context: context)
                    }
                } else {
                    head = try await plugin.prepare(head, context: attempt.context)
                }
            } catch {
                throw ErrorMapping.raised(
                    error, by: plugin, code: .vetoed, stage: .interception, what: "plugin", request: head,
                    attempt: attempt.number)
            }
        }
        attempt.request.head = head
    }
}

/// Plugins' `willSend` just before the exchange and `didReceive` just after
/// (``AttemptSlot/pluginObservation``): every `willSend` is matched by one
/// `didReceive`, whatever the exchange ended with.
struct PluginObservationStep: AttemptStep {
    let plugins: [any Plugin]

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        try await Self.observe(&attempt, state, plugins, next)
    }

    /// `willSend`, the rest of the chain, `didReceive`.
    nonisolated(nonsending) static func observe(
        _ attempt: inout Attempt, _ state: CallState, _ plugins: [any Plugin], _ next: AttemptNext
    ) async throws(CourierError) -> RawResponse {
        let (head, context) = (attempt.request.head, attempt.context)
        for plugin in plugins { await plugin.willSend(head, context: context) }
        let result: Result<RawResponse, CourierError>
        do throws(CourierError) {
            result = .success(try await next(&attempt, state))
        } catch {
            result = .failure(error)
        }
        for plugin in plugins { await plugin.didReceive(result, request: head, context: context) }
        // Moved out, not copied: a copy of a response retains every part of it.
        switch consume result {
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }
}

/// The plugins' hooks and the head check as one step, for a call nothing
/// shares (no identity check stands between `prepare` and `willSend`):
/// ``PluginPreparationStep``, ``HeadCheckStep`` and
/// ``PluginObservationStep`` in a single frame, in slot
/// ``AttemptSlot/pluginPreparation``. A pass nothing shares asks no one
/// what they declare, so there are no declarations to offset.
struct PluginHooksStep: AttemptStep {
    let plugins: [any Plugin]

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        try await PluginPreparationStep.prepare(&attempt, state, plugins, 0)
        try HeadCheckStep.check(attempt)
        return try await PluginObservationStep.observe(&attempt, state, plugins, next)
    }
}

/// The per-attempt interceptors (``AttemptSlot/attemptInterceptors``),
/// folded around the rest of the attempt with the attempt's context; in a
/// shared pass each sees what it declared.
struct AttemptInterceptorsStep: AttemptStep {
    let interceptors: [any Interceptor]

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        let given = attempt
        let chain = InterceptorChain.fold(interceptors, context: attempt.context, identity: state.identity) {
            request in
            var passed = given
            passed.request = request
            return try await next(&passed, state)
        }
        do {
            return try await chain(attempt.request)
        } catch {
            throw ErrorMapping.courier(error)
        }
    }
}
