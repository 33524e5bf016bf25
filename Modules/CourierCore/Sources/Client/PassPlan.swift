/// What one pass works from: the endpoint as mapped and intercepted, the
/// settings it resolves to and the context, fixed once built and shared by
/// reference. A stage that changes the endpoint makes a new plan.
final class PassPlan: Sendable {
    let spec: EndpointSpec
    let settings: CallSettings
    let context: CallContext
    /// The envelope format in force: the endpoint's, or its node's.
    let envelope: EnvelopeFormat?
    /// What the call brought, the same for every pass.
    let call: CallInputs

    /// The steps of an attempt of this pass: a call's, or a stream's.
    var attemptChain: AttemptChain { call.stream == nil ? settings.callAttempt : settings.streamAttempt }
    /// The steps around the attempt loop: a stream has neither the cache's nor coalescing's.
    var callTier: CallTierChain { call.stream == nil ? settings.callTier : settings.streamTier }
    /// Whether the pass's response body may still be on the wire when it is
    /// validated (a stream's): its envelope is then not read.
    var bodyMayBeOpen: Bool { call.stream != nil }
    /// Whether plugins' `process` runs at the end of the pass (`.process`);
    /// a stream's runs when the stream ends instead (`StreamSession`).
    var processesAtPassEnd: Bool { call.stream == nil && !settings.plugins.isEmpty }

    /// The first pass's plan.
    convenience init(spec: EndpointSpec, call: CallInputs) {
        self.init(spec: spec, settings: .resolve(spec, call), replay: 0, call: call)
    }

    private init(spec: EndpointSpec, settings: CallSettings, replay: Int, call: CallInputs) {
        self.spec = spec
        self.settings = settings
        self.context = CallContext(
            callID: call.id, route: spec.route, node: spec.node, environment: call.environment,
            replay: replay, authenticates: spec.authenticates, cancellation: call.cancellation,
            attachments: spec.attachments, services: call.services,
            isCredentialRefresh: call.isCredentialRefresh,
            isBackgroundRefresh: call.cacheRole == .backgroundRefresh, credentials: settings.credentials)
        self.envelope = spec.envelopeFormat
        self.call = call
    }

    /// The plan for a changed endpoint in the same pass: settings and context follow it.
    func mapped(_ spec: EndpointSpec) -> PassPlan {
        PassPlan(spec: spec, settings: .resolve(spec, call), replay: context.replay, call: call)
    }

    /// The plan with parameters changed: the settings do not depend on them.
    func intercepted(_ spec: EndpointSpec) -> PassPlan {
        PassPlan(spec: spec, settings: settings, replay: context.replay, call: call)
    }

    /// The plan for the next pass, with the endpoint a response handler chose.
    func replaying(_ spec: EndpointSpec) -> PassPlan {
        PassPlan(spec: spec, settings: .resolve(spec, call), replay: context.replay + 1, call: call)
    }
}

/// What the caller and the client bring to a call, the same for every pass.
struct CallInputs: Sendable {
    let id: UInt64
    /// What the client's calls share: its configuration, cache, in-flight exchanges.
    let services: ClientServices
    /// Read once at the call's start.
    let environment: ServerEnvironment
    /// Whether an authenticator's refresh makes the call (read once at its start).
    let isCredentialRefresh = !AuthenticationRefresh.inProgress.isEmpty
    /// Plugins passed to this one call (after the client's and endpoint's).
    let plugins: [any Plugin]
    /// Upload and download progress for the caller.
    let progress: (@Sendable (TransferProgress) -> Void)?
    /// The call's cancellation from outside its task, for the context.
    var cancellation: CallCancellation? = nil
    /// What pauses the call's transfer (CourierTransfers' `Transfer`), for the transport.
    var transferControl: TransferControl? = nil
    /// Who runs the call, for a response cache taking part in it.
    var cacheRole: CacheRole = .lastDelivery
    /// For a streaming call (CourierStreamFormats' `APIClient.stream(_:timeouts:plugins:)`):
    /// what cancels a body its attempts opened that the call does not return
    /// (the one it returns travels in the pass's response,
    /// ``RawResponse/openBody``). Such a call skips the response cache,
    /// coalescing and plugins' `process`, which runs when the stream ends
    /// instead.
    var stream: StreamSlot? = nil
}
