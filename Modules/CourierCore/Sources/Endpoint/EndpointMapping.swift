import HTTPTypes

/// The step from endpoint to request: a named, replaceable function that may
/// add parameters, replace the body or add headers for every endpoint a
/// client sends (Moya's `endpointClosure`, XSYNetwork's endpoint block).
///
/// ```swift
/// let mapping = EndpointMapping.default
///     .adding(headers: [.acceptLanguage: "zh-Hans"])
///     .adding(query: ["app_version": "3.2"])
/// ```
public struct EndpointMapping: Sendable {
    let transform: @Sendable (EndpointSpec) async throws -> EndpointSpec

    /// Wraps a function from spec to spec.
    public init(_ transform: @escaping @Sendable (EndpointSpec) async throws -> EndpointSpec) {
        self.transform = transform
    }

    /// Leaves every endpoint as it is.
    public static let `default` = EndpointMapping { $0 }

    /// Applies the mapping.
    /// - Throws: Whatever the mapping throws; the call fails at the build stage.
    public func map(_ spec: EndpointSpec) async throws -> EndpointSpec { try await transform(spec) }

    /// This mapping, then `next`.
    public func then(_ next: EndpointMapping) -> EndpointMapping {
        EndpointMapping { try await next.map(self.map($0)) }
    }

    /// This mapping, then set these header fields unless the endpoint sets them.
    public func adding(headers: HTTPFields) -> EndpointMapping {
        then(
            EndpointMapping { spec in
                var spec = spec
                var merged = headers
                merged.setAll(spec.headers)
                spec.headers = merged
                return spec
            })
    }

    /// This mapping, then add query parameters (the endpoint's own win).
    public func adding(query: Parameters) -> EndpointMapping {
        then(
            EndpointMapping { spec in
                var spec = spec
                spec.query = query.merging(spec.query)
                return spec
            })
    }
}

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
