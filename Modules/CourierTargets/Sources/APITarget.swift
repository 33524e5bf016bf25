public import CourierCore
public import HTTPTypes

/// A Moya-style target: conform an enum and map each case to a node, a route
/// and a body; send it raw or decode at the call site.
///
/// ```swift
/// enum GitHub: APITarget {
///     case user(String), zen
///     var node: Node { .github }
///     var route: Route {
///         switch self {
///         case .user(let name): .get("users/\(name)")
///         case .zen: .get("zen")
///         }
///     }
/// }
/// let raw = try await client.send(GitHub.zen.endpoint)
/// let user = try await client.send(GitHub.user("octocat").endpoint(decoding: User.self))
/// ```
public protocol APITarget: Sendable {
    /// The server.
    var node: Node { get }
    /// Method and path.
    var route: Route { get }
    /// Query parameters; none by default.
    var query: Parameters { get }
    /// The body; none by default.
    var content: Content { get }
    /// Header fields; none by default.
    var headers: HTTPFields { get }
    /// The spec this target maps to; by default built from the fields above.
    var spec: EndpointSpec { get }
}

extension APITarget {
    /// No query parameters.
    public var query: Parameters { .empty }
    /// No body.
    public var content: Content { .none }
    /// No header fields.
    public var headers: HTTPFields { [:] }

    /// The default mapping from target to spec.
    public var spec: EndpointSpec {
        EndpointSpec(route: route, node: node, query: query, content: content, headers: headers)
    }

    /// The endpoint returning the raw response.
    public var endpoint: Endpoint<RawResponse> { Endpoint(spec: spec, serializer: .raw) }

    /// The endpoint decoding a model.
    public func endpoint<Model: Decodable & Sendable>(decoding _: Model.Type) -> Endpoint<Model> {
        Endpoint(spec: spec, serializer: .decodable())
    }
}
