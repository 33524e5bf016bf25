/// What a ``Node`` applies to every endpoint on it: interceptors, plugins
/// and its business-code table (CSAPIService's per-domain request
/// interceptors and its "not logged in → show the login" handling).
///
/// They run between the client's and the endpoint's: interceptors in the
/// order client → node → endpoint, plugins client → node → endpoint → the
/// call's. The node's ``BusinessCodes`` act first among its per-call
/// interceptors, so they see what the node's and the endpoint's other
/// interceptors let through.
///
/// ```swift
/// extension Node {
///     static let payments: Node = {
///         var node = Node("payments", baseURL: "https://pay.example.com", envelope: .standard)
///         node.callInterceptors = [PaymentSigning()]
///         node.plugins = [AuditPlugin()]
///         node.businessCodes.on(4010) { _, _ in await Session.shared.signOut(); return .fail }
///         return node
///     }()
/// }
/// ```
final class NodeComponents: Sendable {
    let parameterInterceptors: [ParameterInterceptor]
    let callInterceptors: [any Interceptor]
    let attemptInterceptors: [any Interceptor]
    let plugins: [any Plugin]
    let businessCodes: BusinessCodes

    /// None: the node adds nothing.
    static let none = NodeComponents()

    init(
        parameterInterceptors: [ParameterInterceptor] = [], callInterceptors: [any Interceptor] = [],
        attemptInterceptors: [any Interceptor] = [], plugins: [any Plugin] = [],
        businessCodes: BusinessCodes = BusinessCodes()
    ) {
        self.parameterInterceptors = parameterInterceptors
        self.callInterceptors = callInterceptors
        self.attemptInterceptors = attemptInterceptors
        self.plugins = plugins
        self.businessCodes = businessCodes
        self.isEmpty =
            parameterInterceptors.isEmpty && callInterceptors.isEmpty && attemptInterceptors.isEmpty
            && plugins.isEmpty && businessCodes.isEmpty
    }

    /// Whether the node adds anything to its endpoints' calls (read on every call).
    let isEmpty: Bool

    /// The per-call interceptors the node adds: its business codes first.
    var allCallInterceptors: [any Interceptor] {
        businessCodes.isEmpty
            ? callInterceptors : [BusinessCodeRouter(codes: businessCodes)] + callInterceptors
    }

    /// A copy with one part changed.
    func with(
        parameterInterceptors: [ParameterInterceptor]? = nil, callInterceptors: [any Interceptor]? = nil,
        attemptInterceptors: [any Interceptor]? = nil, plugins: [any Plugin]? = nil,
        businessCodes: BusinessCodes? = nil
    ) -> NodeComponents {
        NodeComponents(
            parameterInterceptors: parameterInterceptors ?? self.parameterInterceptors,
            callInterceptors: callInterceptors ?? self.callInterceptors,
            attemptInterceptors: attemptInterceptors ?? self.attemptInterceptors,
            plugins: plugins ?? self.plugins, businessCodes: businessCodes ?? self.businessCodes)
    }
}

extension NodeComponents: Hashable {
    /// Components are equal when they are the same set (changing one makes a new set).
    static func == (lhs: NodeComponents, rhs: NodeComponents) -> Bool { lhs === rhs }

    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension Node {
    /// Parameter interceptors for every endpoint on this node, after the client's.
    public var parameterInterceptors: [ParameterInterceptor] {
        get { components.parameterInterceptors }
        set { components = components.with(parameterInterceptors: newValue) }
    }

    /// Per-call interceptors for every endpoint on this node, after the
    /// client's and before the endpoint's.
    public var callInterceptors: [any Interceptor] {
        get { components.callInterceptors }
        set { components = components.with(callInterceptors: newValue) }
    }

    /// Per-attempt interceptors for every endpoint on this node, after the
    /// client's and before the endpoint's.
    public var attemptInterceptors: [any Interceptor] {
        get { components.attemptInterceptors }
        set { components = components.with(attemptInterceptors: newValue) }
    }

    /// Plugins for every endpoint on this node: their hooks run after the
    /// client's plugins and before the endpoint's.
    public var plugins: [any Plugin] {
        get { components.plugins }
        set { components = components.with(plugins: newValue) }
    }

    /// What the node does about business codes in its envelopes
    /// (``BusinessCodes``).
    public var businessCodes: BusinessCodes {
        get { components.businessCodes }
        set { components = components.with(businessCodes: newValue) }
    }
}
