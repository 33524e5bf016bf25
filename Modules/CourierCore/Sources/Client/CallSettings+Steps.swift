extension CallSettings {
    /// The steps around a call's attempt loop: the response cache's when
    /// the client has one, coalescing's when the endpoint coalesces (never
    /// for a download).
    static func callTier(
        _ spec: EndpointSpec, _ configuration: APIClient.Configuration, coalescing: Coalescing?
    )
        -> CallTierChain
    {
        var steps: [any CallTierStep] = []
        let caches = configuration.responseCache != nil
        if caches { steps.append(ResponseCacheStep()) }
        let coalescing = spec.destination == nil ? coalescing : nil
        if let coalescing { steps.append(CoalescingStep(coalescing: coalescing)) }
        return CallTierChain(steps, caches: caches, coalescing: coalescing)
    }

    /// The steps of an attempt that `spec` under `configuration` configures,
    /// each feature's only when it is used, with the steps every attempt
    /// has (its budget, validation, the head check); the exchange is added
    /// by the caller (the hops of a call, or a stream's). A new feature adds
    /// its step here, from its own folder, in its ``AttemptSlot``.
    static func attemptSteps(
        _ spec: EndpointSpec, _ configuration: APIClient.Configuration,
        attemptInterceptors: [any Interceptor],
        plugins: [any Plugin], concurrency: Bool, shared: Bool
    ) -> [(slot: AttemptSlot, step: any AttemptStep)] {
        var steps: [(slot: AttemptSlot, step: any AttemptStep)] = [
            (.budget, AttemptBudgetStep()), (.validation, AttemptValidationStep()),
        ]
        if concurrency { steps.append((.groupAdmission, GroupAdmissionStep())) }
        if let destination = spec.destination {
            steps.append((.downloadStaging, DownloadStagingStep(destination: destination)))
            if destination.options.contains(.resumable) {
                steps.append((.downloadResume, DownloadResumeStep(destination: destination)))
            }
        }
        if !attemptInterceptors.isEmpty {
            steps.append((.attemptInterceptors, AttemptInterceptorsStep(interceptors: attemptInterceptors)))
        }
        let offset = attemptInterceptors.count
        if plugins.isEmpty {
            steps.append((.headCheck, HeadCheckStep()))
        } else if shared {
            // The identity check stands between the plugins' prepare and willSend.
            steps.append(
                (.pluginPreparation, PluginPreparationStep(plugins: plugins, declarationOffset: offset)))
            steps.append((.headCheck, HeadCheckStep()))
            steps.append((.pluginObservation, PluginObservationStep(plugins: plugins)))
        } else {
            steps.append((.pluginPreparation, PluginHooksStep(plugins: plugins, declarationOffset: offset)))
        }
        if shared { steps.append((.identityCheck, IdentityCheckStep())) }
        // The satellites' steps (ClientExtension), in a stable order.
        for (_, satellite) in configuration.extensions.sorted(by: { "\($0.key)" < "\($1.key)" }) {
            steps += satellite.attemptSteps(for: spec, in: configuration)
        }
        return steps
    }
}
