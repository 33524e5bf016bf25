/// Everything one call knows, as one value that the pipeline's stages take
/// and return (``CallPipeline`` lists them in order).
///
/// It is small on purpose — copying it is a handful of reference counts:
/// what does not change during a pass lives in the immutable ``plan``; the
/// attempt count and deadline start live in ``budget``, the one shared
/// piece (its documentation says why); the envelope head read during
/// validation travels with the response it belongs to (``RawResponse``'s
/// validation stamp), never beside it.
package struct CallState: Sendable {
    /// Unique within the process; stamps the responses this call validated.
    let id: UInt64
    /// The call's attempt count and deadline start, shared by every run of
    /// the attempt loop and every pass.
    let budget: CallBudget
    /// The endpoint and settings this pass works from.
    var plan: PassPlan
    /// The encoded request, once `.encoding` built it.
    var request: OutgoingRequest?
    /// Cancellation from outside the caller's task (``APIClient/cancelAll()``,
    /// a concurrency policy).
    package let cancellation: CallCancellation
    /// The call's place in its ``ConcurrencyGroup``, when it has one.
    var membership: GroupMembership?
    /// The response cache's part in this pass, when it takes one (`.responseCache`).
    var cacheStage: (any CachePass)?
    /// What the per-attempt interceptors and plugins declare they add,
    /// asked once per pass when the cache or coalescing takes part; `nil`
    /// when neither does (``PassIdentity``).
    var identity: PassIdentity?
    /// Set after a stored answer failed validation or decoding: the passes
    /// that follow ask the network only.
    var skipsCacheReading = false
    /// For a caller that takes every delivery: validates, decodes and hands
    /// over a response the cache delivers before the network's
    /// (``CacheRead/deliverFirst(_:then:)``); whether it was usable. Set by
    /// ``CallPipeline/run(_:_:stored:)``.
    var deliverStored: (@Sendable (RawResponse, CallState) async -> Bool)?

    /// The context interceptors and plugins see.
    var context: CallContext { plan.context }
    /// The settings in force.
    var settings: CallSettings { plan.settings }

    /// The clock the call's waits and deadlines use.
    package var clock: any CourierClock { settings.clock }

    /// How long an attempt may wait before it sends: what is left of the
    /// retry policy's deadline, else the attempt's total, else its idle
    /// timeout, else a minute.
    package var attemptWaitBound: Duration {
        let settings = self.settings
        let left = settings.retryPolicy.deadline.map { $0 - budget.elapsed(now: settings.clock.now) }
        return max(.zero, left ?? settings.timeout ?? settings.idleTimeout ?? .seconds(60))
    }

    /// Attempts begun so far in the call.
    package var attemptsBegun: Int { budget.attempts }

    /// Tells the monitors of `kind`, for attempt `attempt` when it is about one.
    /// The event is built only when a monitor listens: most calls have none,
    /// and building one copies what it carries (a request head, a result).
    package func emit(_ kind: @autoclosure () -> CallEvent.Kind, attempt: Int? = nil) {
        let monitors = settings.monitors
        guard !monitors.isEmpty else { return }
        var context = self.context
        if let attempt { context.attempt = attempt }
        CallEvent.deliver(kind(), context: context, to: monitors)
    }

    init(id: UInt64, plan: PassPlan, cancellation: CallCancellation) {
        self.init(id: id, budget: CallBudget(), plan: plan, cancellation: cancellation)
    }

    private init(id: UInt64, budget: CallBudget, plan: PassPlan, cancellation: CallCancellation) {
        self.id = id
        self.budget = budget
        self.plan = plan
        self.cancellation = cancellation
    }

    /// This call's state with another cancellation: for an exchange that
    /// coalesced calls share, which only its last caller may cancel.
    func sharing(_ cancellation: CallCancellation) -> CallState {
        var copy = CallState(id: id, budget: budget, plan: plan, cancellation: cancellation)
        copy.request = request
        copy.membership = membership
        copy.cacheStage = cacheStage
        copy.identity = identity
        copy.skipsCacheReading = skipsCacheReading
        copy.deliverStored = deliverStored
        return copy
    }
}

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
    /// Who runs the call, for a response cache taking part in it.
    var cacheRole: CacheRole = .lastDelivery
    /// For a streaming call (``APIClient/stream(_:timeouts:plugins:)``):
    /// what cancels a body its attempts opened that the call does not return
    /// (the one it returns travels in the pass's response,
    /// ``RawResponse/openBody``). Such a call skips the response cache,
    /// coalescing and plugins' `process`, which runs when the stream ends
    /// instead.
    var stream: StreamSlot? = nil
}
