public import CourierCore
public import HTTPTypes

/// The origins an ``Authenticator`` signs requests for: a credential goes
/// to the servers it was given for, and to no other.
///
/// An origin is a scheme, a host and a port (`https://api.example.com`, the
/// default port implied). A call to any other origin — another node of the
/// same client, a URL an endpoint mapping or a plugin chose — passes the
/// authenticator unsigned, and its 401 starts no refresh.
///
/// ```swift
/// let auth = Authenticator(Sessions(), for: [api])            // every URL of the node
/// let both = Authenticator(Sessions(), for: [api, uploads])
/// let raw = Authenticator(Sessions(), for: .origins(["https://files.example.com"]))
/// ```
public struct AuthenticationScope: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The origins, normalised: lowercased, without a default port.
    public let origins: Set<String>

    /// The origins of these nodes' base URLs, in every environment they name.
    public static func nodes(_ nodes: [Node]) -> AuthenticationScope {
        AuthenticationScope(origins: nodes.flatMap { $0.urls.values }.compactMap(Self.origin(ofURL:)))
    }

    /// These origins (`scheme://host[:port]`); a path or query given with
    /// one is ignored, anything not an http(s) URL with a host is left out.
    public static func origins(_ origins: [String]) -> AuthenticationScope {
        AuthenticationScope(origins: origins.compactMap(Self.origin(ofURL:)))
    }

    /// The nodes' origins: `[api, uploads]`.
    public init(arrayLiteral nodes: Node...) {
        self = .nodes(nodes)
    }

    private init(origins: [String]) {
        self.origins = Set(origins)
    }

    /// Whether a request to `head`'s origin may carry the credential.
    public func contains(_ head: HTTPRequest) -> Bool {
        origins.contains(Self.origin(of: head))
    }

    /// Whether the calls of `context` go to one of the origins, as its node's
    /// base URL says (before an endpoint mapping or interceptor changed it).
    func contains(_ context: CallContext) -> Bool {
        guard let url = try? context.node.baseURL(for: context.environment) else { return false }
        return Self.origin(ofURL: url).map(origins.contains) ?? false
    }

    private static func origin(ofURL string: String) -> String? {
        guard let url = BaseURL(string) else { return nil }
        return origin(of: HTTPRequest(method: .get, scheme: url.scheme, authority: url.authority, path: "/"))
    }

    /// `scheme://authority` by the rule request keys use (``RequestKey``):
    /// how origins are compared wherever a credential is scoped to them.
    package static func origin(of head: HTTPRequest) -> String {
        let (scheme, authority) = RequestKey.NormalisedURL.origin(of: head)
        return "\(scheme)://\(authority)"
    }
}
