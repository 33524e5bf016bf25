extension CallSettings {
    /// The steps around a call's attempt loop: the response cache's when
    /// the client has one, coalescing's when the endpoint coalesces (never
    /// for a download); and the call-scoped steps: the satellites' (a
    /// concurrency group's membership), the cache's and coalescing's part
    /// in each pass. A stream's tier has only the satellites'.
    static func callTier(
        _ spec: EndpointSpec, _ configuration: APIClient.Configuration, coalescing: Coalescing?,
        contributors: [any ClientExtension], stream: Bool
    )
        -> CallTierChain
    {
        var steps: [any CallTierStep] = []
        var passSteps = contributors.flatMap { $0.passSteps(for: spec, in: configuration) }
        guard !stream else { return CallTierChain(steps, passSteps: passSteps) }
        if let cache = configuration.responseCache {
            let step = ResponseCacheStep(cache: cache)
            steps.append(step)
            passSteps.append(step)
        }
        if let coalescing = spec.downloadTarget == nil ? coalescing : nil {
            let step = CoalescingStep(coalescing: coalescing)
            steps.append(step)
            passSteps.append(step)
        }
        return CallTierChain(steps, passSteps: passSteps)
    }

    /// The steps of an attempt that `spec` under `configuration` configures,
    /// each feature's only when it is used, with the steps every attempt
    /// has (its budget, validation, the head check); the exchange is added
    /// by the caller (the hops of a call, or a stream's). A new feature adds
    /// its step here, from its own folder, in its ``AttemptSlot``.
    static func attemptSteps(
        _ spec: EndpointSpec, _ configuration: APIClient.Configuration,
        attemptInterceptors: [any Interceptor],
        plugins: [any Plugin], contributors: [any ClientExtension], shared: Bool
    ) -> [(slot: AttemptSlot, step: any AttemptStep)] {
        var steps: [(slot: AttemptSlot, step: any AttemptStep)] = [
            (.budget, AttemptBudgetStep()), (.validation, AttemptValidationStep()),
        ]
        if let destination = spec.downloadTarget {
            steps.append((.downloadStaging, DownloadStagingStep(destination: destination)))
            if destination.options.contains(.resumable) {
                steps.append((.downloadResume, DownloadResumeStep(destination: destination)))
            }
        }
        if !attemptInterceptors.isEmpty {
            steps.append((.attemptInterceptors, AttemptInterceptorsStep(interceptors: attemptInterceptors)))
        }
        if plugins.isEmpty {
            steps.append((.headCheck, HeadCheckStep()))
        } else if shared {
            // The identity check stands between the plugins' prepare and willSend.
            steps.append(
                (
                    .pluginPreparation,
                    PluginPreparationStep(plugins: plugins, declarationOffset: attemptInterceptors.count)
                ))
            steps.append((.headCheck, HeadCheckStep()))
            steps.append((.pluginObservation, PluginObservationStep(plugins: plugins)))
        } else {
            steps.append((.pluginPreparation, PluginHooksStep(plugins: plugins)))
        }
        if shared { steps.append((.identityCheck, IdentityCheckStep())) }
        // The satellites' steps (ClientExtension), in a stable order.
        for satellite in contributors { steps += satellite.attemptSteps(for: spec, in: configuration) }
        return steps
    }
}
