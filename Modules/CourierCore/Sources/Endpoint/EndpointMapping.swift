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
