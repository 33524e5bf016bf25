public import HTTPTypes

/// The step from endpoint to request: a named, replaceable function that may
/// add parameters, replace the body or add headers for every endpoint a
/// client sends (Moya's `endpointClosure`).
///
/// ```swift
/// let mapping = EndpointMapping.default
///     .adding(headers: [.acceptLanguage: "zh-Hans"])
///     .adding(query: ["app_version": "3.2"])
/// ```
///
/// A mapping is a list of steps run in order. An error a step throws stops
/// the call at the build stage and names the step in
/// ``CourierError/thrownBy``: by the name given to it, or by the file and
/// line where it was made.
public struct EndpointMapping: Sendable {
    /// One named transformation.
    struct Step: Sendable, NamedComponent {
        let componentName: ComponentName
        let transform: @Sendable (EndpointSpec) async throws -> EndpointSpec
    }

    /// The steps, in the order they run; empty for ``default``.
    let steps: [Step]

    private init(steps: [Step]) { self.steps = steps }

    /// Wraps a function from spec to spec.
    /// - Parameters:
    ///   - name: A name for errors and logs; by default the place the closure was written.
    ///   - fileID: Where the closure was written, for the default name; leave it out.
    ///   - line: The line the closure was written on; leave it out.
    ///   - transform: Returns the spec to send.
    public init(
        name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        _ transform: @escaping @Sendable (EndpointSpec) async throws -> EndpointSpec
    ) {
        self.init(
            steps: [
                Step(
                    componentName: ComponentName(name, kind: "EndpointMapping", fileID: fileID, line: line),
                    transform: transform)
            ])
    }

    /// Leaves every endpoint as it is.
    public static let `default` = EndpointMapping(steps: [])

    /// Applies the mapping.
    /// - Throws: Whatever a step throws; the call fails at the build stage.
    public func map(_ spec: EndpointSpec) async throws -> EndpointSpec {
        var spec = spec
        for step in steps { spec = try await step.transform(spec) }
        return spec
    }

    /// This mapping, then `next`.
    public func then(_ next: EndpointMapping) -> EndpointMapping {
        EndpointMapping(steps: steps + next.steps)
    }

    /// This mapping, then set these header fields unless the endpoint sets them.
    public func adding(headers: HTTPFields, fileID: StaticString = #fileID, line: UInt = #line)
        -> EndpointMapping
    {
        then(
            EndpointMapping(name: "adding(headers:) at \(fileID):\(line)") { spec in
                var spec = spec
                var merged = headers
                merged.setAll(spec.headers)
                spec.headers = merged
                return spec
            })
    }

    /// This mapping, then add query parameters (the endpoint's own win).
    public func adding(query: Parameters, fileID: StaticString = #fileID, line: UInt = #line)
        -> EndpointMapping
    {
        then(
            EndpointMapping(name: "adding(query:) at \(fileID):\(line)") { spec in
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
