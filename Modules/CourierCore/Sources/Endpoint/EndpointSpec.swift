import HTTPTypes

/// Everything about an endpoint except its response type: what to send, and
/// how the pipeline treats it. ``Endpoint`` exposes these fields directly.
///
/// Fields left `nil` take the client's defaults.
public struct EndpointSpec: Sendable {
    /// The server.
    public var node: Node
    /// Method and path.
    public var route: Route
    /// Query parameters (beside any body).
    public var query: Parameters
    /// The body.
    public var content: Content
    /// Header fields; they replace the node's fields of the same name.
    public var headers: HTTPFields
    /// The longest one attempt may take.
    public var timeout: Duration?
    /// Acceptable statuses and content types.
    public var validation: Validation?
    /// Whether and how the response envelope is checked.
    public var envelope: EnvelopeChoice
    /// When to retry.
    public var retryPolicy: RetryPolicy?
    /// How query and form parameters are encoded.
    public var parameterEncoding: ParameterEncoding?
    /// Per-call interceptors, after the client's.
    public var callInterceptors: [any Interceptor]
    /// Per-attempt interceptors, after the client's.
    public var attemptInterceptors: [any Interceptor]
    /// Parameter interceptors, after the client's.
    public var parameterInterceptors: [ParameterInterceptor]
    /// Decodes this endpoint's responses instead of the client's decoder.
    public var decoder: (any ResponseDecoder)?
    /// Rewrites the body before decoding (ACINetworking's Transformer).
    public var transformer: (any ResponseTransformer)?
    /// Write the response body to a file instead of memory.
    public var destination: DownloadDestination?
    /// The largest in-memory response body accepted.
    public var maxBodySize: Int?

    /// Creates a spec with defaults for everything but the essentials.
    public init(
        route: Route, node: Node, query: Parameters = .empty, content: Content = .none,
        headers: HTTPFields = [:]
    ) {
        self.node = node
        self.route = route
        self.query = query
        self.content = content
        self.headers = headers
        self.envelope = .node
        self.callInterceptors = []
        self.attemptInterceptors = []
        self.parameterInterceptors = []
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
