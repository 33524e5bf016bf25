import HTTPTypes

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
    /// The attempt's total; `nil` for a download by default (the client's download bounds).
    let timeout: Duration?
    /// The attempt's idle timeout (``TransportOptions/idleTimeout``).
    let idleTimeout: Duration?
    /// The client's connect timeout, when it sets one.
    let connectTimeout: Duration?
    let maxBodySize: Int
    let maxDownloadSize: Int64?
    /// ``TransportOptions/maxDownloadExpansion``: the client's.
    let maxDownloadExpansion: Int?
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
    /// The client's event monitors, then the plugins (``EventMonitor``).
    let monitors: [any EventMonitor]
    /// The fields that carry credentials: the client's, and those its
    /// ``Redacting`` plugins hide (``CredentialFields``).
    let credentials: CredentialFields
    /// An attempt of a call: the steps these settings configure, around the hops.
    let callAttempt: AttemptChain
    /// An attempt of a stream: the same, around the stream's exchange.
    let streamAttempt: AttemptChain
    /// A call's steps around its attempt loop: the response cache's, coalescing's.
    let callTier: CallTierChain
    /// A stream's: the attempt loop alone.
    let streamTier: CallTierChain

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
        let isDownload = spec.downloadTarget != nil
        timeout = spec.timeout ?? (isDownload ? configuration.downloadTotalTimeout : configuration.timeout)
        idleTimeout =
            spec.idleTimeout ?? (isDownload ? configuration.downloadIdleTimeout : configuration.idleTimeout)
        connectTimeout = configuration.connectTimeout
        maxBodySize = spec.maxBodySize ?? configuration.maxBodySize
        maxDownloadSize = spec.downloadSizeLimit ?? configuration.downloadSizeLimit
        maxDownloadExpansion = configuration.downloadExpansionLimit
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
        coalescing = spec.coalescing
        authenticatesPerCall = callInterceptors.contains(where: Self.authenticates)
        redirects = configuration.redirects
        cookies = configuration.cookies
        monitors = APIClient.Configuration.monitors(configuration.eventMonitors, then: plugins)
        credentials = plugins.reduce(configuration.credentialFields) { credentials, plugin in
            guard let hidden = (plugin as? any Redacting)?.redaction.headers else { return credentials }
            return credentials.declaring(hidden.map(\.rawName))
        }
        let contributors = Self.contributors(spec, configuration)
        let steps = Self.attemptSteps(
            spec, configuration, attemptInterceptors: attemptInterceptors, plugins: plugins,
            contributors: contributors, shared: coalescing != nil || configuration.responseCache != nil)
        callAttempt = AttemptChain(steps + [(.exchange, HopStage())])
        callTier = Self.callTier(
            spec, configuration, coalescing: coalescing, contributors: contributors, stream: false)
        streamTier = Self.callTier(
            spec, configuration, coalescing: coalescing, contributors: contributors, stream: true)
        streamAttempt = AttemptChain(
            steps.filter {
                $0.slot != .downloadStaging && $0.slot != .downloadResume && $0.slot != .identityCheck
            }
                + [(.exchange, StreamExchangeStep())])
    }

    /// The retry policy of `spec` under `configuration`; also for an event
    /// stream (CourierStreamFormats' `APIClient.events(_:timeouts:plugins:)`), which retries its
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
        !node.components.isEmpty || !node.attachments.stepContributors.isEmpty || decoder != nil
            || retryPolicy != nil
            || validation != nil
            || parameterEncoding != nil
            || timeout != nil || idleTimeout != nil || downloadTarget != nil
            || maxBodySize != nil || downloadSizeLimit != nil || !parameterInterceptors.isEmpty
            || !callInterceptors.isEmpty
            || !attemptInterceptors.isEmpty || !plugins.isEmpty || coalescing != nil
            || !attachments.stepContributors.isEmpty
    }
}
