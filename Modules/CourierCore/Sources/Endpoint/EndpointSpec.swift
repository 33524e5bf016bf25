public import HTTPTypes

/// Everything about an endpoint except its response type: what to send, and
/// how the pipeline treats it. ``Endpoint`` exposes these fields directly.
///
/// Fields left `nil` take the client's defaults.
///
/// The fields live in one shared, copy-on-write box: an endpoint value is
/// copied on every call (and by every copy-with helper), and a copy costs one
/// reference count instead of one per field.
public struct EndpointSpec: Sendable {
    /// The stored fields, in a box shared between copies until one changes.
    private var box: SharedFields<Fields>
    /// The server.
    public var node: Node {
        get { box.fields.node }
        set { SharedFields.unique(&box).fields.node = newValue }
    }
    /// Method and path.
    public var route: Route {
        get { box.fields.route }
        set { SharedFields.unique(&box).fields.route = newValue }
    }
    /// Query parameters (beside any body).
    public var query: Parameters {
        get { box.fields.query }
        set { SharedFields.unique(&box).fields.query = newValue }
    }
    /// The body.
    public var content: Content {
        get { box.fields.content }
        set { SharedFields.unique(&box).fields.content = newValue }
    }
    /// Header fields; they replace the node's fields of the same name.
    public var headers: HTTPFields {
        get { box.fields.headers }
        set { SharedFields.unique(&box).fields.headers = newValue }
    }
    /// The longest one attempt may take (its total), replacing the client's
    /// ``APIClient/Configuration/timeout`` — or, for a download, the
    /// client's download total (CourierTransfers' `DownloadTimeouts.total`).
    public var timeout: Duration? {
        get { box.fields.timeout }
        set { SharedFields.unique(&box).fields.timeout = newValue }
    }
    /// The longest an attempt may move no byte either way, replacing the
    /// client's ``APIClient/Configuration/idleTimeout`` — or, for a download,
    /// the client's download idle bound (CourierTransfers' `DownloadTimeouts.idle`).
    public var idleTimeout: Duration? {
        get { box.fields.idleTimeout }
        set { SharedFields.unique(&box).fields.idleTimeout = newValue }
    }
    /// Acceptable statuses and content types.
    public var validation: Validation? {
        get { box.fields.validation }
        set { SharedFields.unique(&box).fields.validation = newValue }
    }
    /// Whether and how the response envelope is checked.
    public var envelope: EnvelopeChoice {
        get { box.fields.envelope }
        set { SharedFields.unique(&box).fields.envelope = newValue }
    }
    /// When to retry.
    public var retryPolicy: RetryPolicy? {
        get { box.fields.retryPolicy }
        set { SharedFields.unique(&box).fields.retryPolicy = newValue }
    }
    /// How query and form parameters are encoded.
    public var parameterEncoding: ParameterEncoding? {
        get { box.fields.parameterEncoding }
        set { SharedFields.unique(&box).fields.parameterEncoding = newValue }
    }
    /// Per-call interceptors, after the client's.
    public var callInterceptors: [any Interceptor] {
        get { box.fields.callInterceptors }
        set { SharedFields.unique(&box).fields.callInterceptors = newValue }
    }
    /// Per-attempt interceptors, after the client's.
    public var attemptInterceptors: [any Interceptor] {
        get { box.fields.attemptInterceptors }
        set { SharedFields.unique(&box).fields.attemptInterceptors = newValue }
    }
    /// Parameter interceptors, after the client's.
    public var parameterInterceptors: [ParameterInterceptor] {
        get { box.fields.parameterInterceptors }
        set { SharedFields.unique(&box).fields.parameterInterceptors = newValue }
    }
    /// Plugins for this endpoint's calls: their hooks run after the client's
    /// plugins and before those passed to a single call.
    public var plugins: [any Plugin] {
        get { box.fields.plugins }
        set { SharedFields.unique(&box).fields.plugins = newValue }
    }
    /// Decodes this endpoint's responses instead of the client's decoder.
    public var decoder: (any ResponseDecoder)? {
        get { box.fields.decoder }
        set { SharedFields.unique(&box).fields.decoder = newValue }
    }
    /// Rewrites the body before decoding.
    public var transformer: (any ResponseTransformer)? {
        get { box.fields.transformer }
        set { SharedFields.unique(&box).fields.transformer = newValue }
    }
    /// A query string already encoded — a pre-signed URL's, or one a
    /// generated client built — sent exactly as given, after the base URL's
    /// query and the encoded ``query`` parameters.
    public var encodedQuery: String? {
        get { box.fields.encodedQuery }
        set { SharedFields.unique(&box).fields.encodedQuery = newValue }
    }
    /// Write the response body to this file instead of memory
    /// (CourierTransfers' `EndpointSpec.destination`).
    package var downloadTarget: DownloadTarget? {
        get { box.fields.downloadTarget }
        set { SharedFields.unique(&box).fields.downloadTarget = newValue }
    }
    /// The largest in-memory response body accepted.
    public var maxBodySize: Int? {
        get { box.fields.maxBodySize }
        set { SharedFields.unique(&box).fields.maxBodySize = newValue }
    }
    /// The largest body a download (``downloadTarget``) may write, counted
    /// after decompression (CourierTransfers' `EndpointSpec.maxDownloadSize`).
    package var downloadSizeLimit: Int64? {
        get { box.fields.downloadSizeLimit }
        set { SharedFields.unique(&box).fields.downloadSizeLimit = newValue }
    }

    /// Whether calls are authenticated (``CallContext/authenticates``):
    /// `true` unless the endpoint opts out — a login or token endpoint, a
    /// public resource.
    public var authenticates: Bool {
        get { box.fields.authenticates }
        set { SharedFields.unique(&box).fields.authenticates = newValue }
    }

    /// Whether calls share one exchange with identical calls in flight
    /// (``Coalescing``); `nil` (never) by default.
    public var coalescing: Coalescing? {
        get { box.fields.coalescing }
        set { SharedFields.unique(&box).fields.coalescing = newValue }
    }

    /// Names for this endpoint's calls, to cancel them together:
    /// ``APIClient/cancelAll(tagged:)`` and CourierConcurrencyGroups'
    /// `ConcurrencyGroup.cancelAll(tagged:)`.
    public var tags: Set<String> {
        get { box.fields.tags }
        set { SharedFields.unique(&box).fields.tags = newValue }
    }

    /// Values other Courier modules keep on the endpoint (the cache's policy).
    package var attachments: EndpointAttachments {
        get { box.fields.attachments }
        set { SharedFields.unique(&box).fields.attachments = newValue }
    }

    /// The fields themselves.
    private struct Fields: Sendable {
        var node: Node
        var route: Route
        var query: Parameters
        var content: Content
        var headers: HTTPFields
        var timeout: Duration? = nil
        var idleTimeout: Duration? = nil
        var validation: Validation? = nil
        var envelope: EnvelopeChoice
        var retryPolicy: RetryPolicy? = nil
        var parameterEncoding: ParameterEncoding? = nil
        var callInterceptors: [any Interceptor]
        var attemptInterceptors: [any Interceptor]
        var parameterInterceptors: [ParameterInterceptor]
        var plugins: [any Plugin]
        var decoder: (any ResponseDecoder)? = nil
        var transformer: (any ResponseTransformer)? = nil
        var downloadTarget: DownloadTarget? = nil
        var encodedQuery: String? = nil
        var maxBodySize: Int? = nil
        var downloadSizeLimit: Int64? = nil
        var authenticates = true
        var coalescing: Coalescing? = nil
        var tags: Set<String> = []
        var attachments = EndpointAttachments()
    }

    /// Creates a spec with defaults for everything but the essentials.
    public init(
        route: Route, node: Node, query: Parameters = .empty, content: Content = .none,
        headers: HTTPFields = [:]
    ) {
        box = SharedFields(
            Fields(
                node: node, route: route, query: query, content: content, headers: headers, envelope: .node,
                callInterceptors: [], attemptInterceptors: [], parameterInterceptors: [], plugins: []))
    }

    /// The envelope format in force: the endpoint's choice, or its node's.
    public var envelopeFormat: EnvelopeFormat? {
        switch envelope {
        case .node: node.envelope
        case .none: nil
        case .format(let format): format
        }
    }
}

/// Whether an endpoint's responses are checked as envelopes.
public enum EnvelopeChoice: Sendable {
    /// Use the node's envelope format, if it has one (the default).
    case node
    /// No envelope: decode the whole body.
    case none
    /// This format, whatever the node says.
    case format(EnvelopeFormat)
}
