/// Everything one call knows, as one value that the pipeline's stages take
/// and return (``CallPipeline`` lists them in order).
///
/// It is small on purpose — copying it is a handful of reference counts:
/// what does not change during a pass lives in the immutable ``plan``; the
/// attempt count and deadline start live in ``budget``, the one shared
/// piece (its documentation says why); the envelope head read during
/// validation travels with the response it belongs to (``RawResponse``'s
/// validation stamp), never beside it.
struct CallState: Sendable {
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
    let cancellation: CallCancellation
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

    /// Tells the monitors of `kind`, for attempt `attempt` when it is about one.
    /// The event is built only when a monitor listens: most calls have none,
    /// and building one copies what it carries (a request head, a result).
    func emit(_ kind: @autoclosure () -> CallEvent.Kind, attempt: Int? = nil) {
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

/// Each setting an endpoint may leave to the client, resolved in one place:
/// `spec.x ?? configuration.x` is written here and nowhere else. Immutable
/// and shared by reference, so reading a setting never copies the rest; an
/// endpoint that overrides nothing (the usual case) shares the client's own
/// instance, resolved once when the client was made.
final class CallSettings: Sendable {
    let transport: any Transport
    let clock: any CourierClock
    let decoder: (any ResponseDecoder)?
    let retryPolicy: RetryPolicy
    let validation: Validation
    let encoding: ParameterEncoding
    /// The attempt's total; `nil` for a download by default (``DownloadTimeouts``).
    let timeout: Duration?
    /// The attempt's idle timeout (``TransportOptions/idleTimeout``).
    let idleTimeout: Duration?
    /// The client's connect timeout, when it sets one.
    let connectTimeout: Duration?
    let maxBodySize: Int
    let maxDownloadSize: Int64?
    let maxReplays: Int
    /// The client's endpoint mapping.
    let mapping: EndpointMapping
    /// Client's, then the node's, then the endpoint's.
    let parameterInterceptors: [ParameterInterceptor]
    /// Client's, then the node's (its business codes first), then the endpoint's.
    let callInterceptors: [any Interceptor]
    /// Client's, then the node's, then the endpoint's.
    let attemptInterceptors: [any Interceptor]
    /// Client's, then the node's, then the endpoint's, then the call's.
    let plugins: [any Plugin]
    /// The endpoint's group, or the client's.
    let concurrencyGroup: ConcurrencyGroup?
    /// The endpoint's policy; `nil` is `.default`.
    let concurrencyPolicy: ConcurrencyPolicy?
    /// Whether identical calls in flight share an exchange; `nil`: never.
    let coalescing: Coalescing?
    /// Whether an authenticating interceptor runs per call (for a response
    /// cache: whose response is it?). Per-attempt ones declare what they add
    /// (``PassIdentity``).
    let authenticatesPerCall: Bool
    /// The client's redirect rules, applied hop by hop (``HopStage``).
    let redirects: RedirectPolicy
    /// The client's cookie jar.
    let cookies: (any CookieStorage)?
    /// The client's reachability gate.
    let networkMonitor: (any NetworkMonitor)?
    /// Whether an attempt made offline waits for the network first.
    let waitsForConnectivity: Bool
    /// The client's circuit breaker.
    let circuitBreaker: CircuitBreaker?
    /// The client's event monitors, then the plugins (``EventMonitor``).
    let monitors: [any EventMonitor]
    /// The fields that carry credentials: the client's, and those its
    /// ``Redacting`` plugins hide (``CredentialFields``).
    let credentials: CredentialFields

    /// The settings of an endpoint that overrides nothing, sent without plugins of its own.
    convenience init(_ configuration: APIClient.Configuration) {
        self.init(EndpointSpec(route: .get(""), node: Node("", baseURL: "")), configuration, callPlugins: [])
    }

    private init(_ spec: EndpointSpec, _ configuration: APIClient.Configuration, callPlugins: [any Plugin]) {
        transport = configuration.transport
        clock = configuration.clock
        decoder = spec.decoder ?? configuration.decoder
        retryPolicy = Self.retryPolicy(spec, configuration)
        validation = spec.validation ?? configuration.validation
        encoding = spec.parameterEncoding ?? configuration.parameterEncoding
        // A download is bounded by the quiet between bytes, not a total a
        // slow link could exceed; an ordinary call by its total.
        let downloads = configuration.downloadTimeouts
        let isDownload = spec.destination != nil
        timeout = spec.timeout ?? (isDownload ? downloads.total : configuration.timeout)
        idleTimeout = spec.idleTimeout ?? (isDownload ? downloads.idle : configuration.idleTimeout)
        connectTimeout = configuration.connectTimeout
        maxBodySize = spec.maxBodySize ?? configuration.maxBodySize
        maxDownloadSize = spec.maxDownloadSize ?? configuration.maxDownloadSize
        maxReplays = configuration.maxReplays
        mapping = configuration.endpointMapping
        // Client's, then the node's, then the endpoint's (and the call's plugins last).
        let node = spec.node.components
        parameterInterceptors = Self.joined(
            Self.joined(configuration.parameterInterceptors, node.parameterInterceptors),
            spec.parameterInterceptors)
        callInterceptors = Self.joined(
            Self.joined(configuration.callInterceptors, node.allCallInterceptors), spec.callInterceptors)
        attemptInterceptors = Self.joined(
            Self.joined(configuration.attemptInterceptors, node.attemptInterceptors), spec.attemptInterceptors
        )
        plugins = Self.joined(
            Self.joined(Self.joined(configuration.plugins, node.plugins), spec.plugins), callPlugins)
        concurrencyGroup = spec.concurrencyGroup ?? configuration.concurrencyGroup
        concurrencyPolicy = spec.concurrencyPolicy
        coalescing = spec.coalescing
        authenticatesPerCall = callInterceptors.contains(where: Self.authenticates)
        redirects = configuration.redirects
        cookies = configuration.cookies
        networkMonitor = configuration.networkMonitor
        waitsForConnectivity = configuration.waitsForConnectivity
        circuitBreaker = configuration.circuitBreaker
        monitors = APIClient.Configuration.monitors(configuration.eventMonitors, then: plugins)
        credentials = plugins.reduce(configuration.credentialFields) { credentials, plugin in
            guard let hidden = (plugin as? any Redacting)?.redaction.headers else { return credentials }
            return credentials.declaring(hidden.map(\.rawName))
        }
    }

    /// The retry policy of `spec` under `configuration`; also for an event
    /// stream (``APIClient/events(_:timeouts:plugins:)``), which retries its
    /// connections itself and sends each with none.
    static func retryPolicy(_ spec: EndpointSpec, _ configuration: APIClient.Configuration) -> RetryPolicy {
        spec.retryPolicy ?? configuration.retryPolicy
    }

    private static func authenticates(_ interceptor: any Interceptor) -> Bool {
        (interceptor as? any AuthenticatingInterceptor)?.authenticatesRequests ?? false
    }

    /// The settings for `spec` in `call`: the client's own when the endpoint
    /// and the call override nothing.
    static func resolve(_ spec: EndpointSpec, _ call: CallInputs) -> CallSettings {
        guard spec.overridesClientSettings || !call.plugins.isEmpty else {
            return call.services.defaultSettings
        }
        return CallSettings(spec, call.services.configuration, callPlugins: call.plugins)
    }

    /// `first + second`, without allocating when either is empty (the usual case).
    private static func joined<Element>(_ first: [Element], _ second: [Element]) -> [Element] {
        if second.isEmpty { return first }
        if first.isEmpty { return second }
        return first + second
    }
}

extension EndpointSpec {
    /// Whether any field that ``CallSettings`` resolves is set on the endpoint.
    var overridesClientSettings: Bool {
        !node.components.isEmpty || decoder != nil || retryPolicy != nil || validation != nil
            || parameterEncoding != nil
            || timeout != nil || idleTimeout != nil || destination != nil
            || maxBodySize != nil || maxDownloadSize != nil || !parameterInterceptors.isEmpty
            || !callInterceptors.isEmpty
            || !attemptInterceptors.isEmpty || !plugins.isEmpty || concurrencyPolicy != nil
            || concurrencyGroup != nil || coalescing != nil
    }
}
