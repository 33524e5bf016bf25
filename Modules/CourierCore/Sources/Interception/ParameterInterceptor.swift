/// Where parameters are going when a parameter interceptor sees them.
public enum ParameterLocation: Sendable, Hashable {
    /// The query string.
    case query
    /// A form or JSON body.
    case body
}

/// Changes parameters before they are encoded: add common parameters, sign
/// them, drop empty ones. Runs once per pass (a replay runs it again), client's first, then the
/// endpoint's, for the query and again for a form or JSON body.
///
/// ```swift
/// ParameterInterceptor { parameters, location, _ in
///     location == .query ? parameters.merging(["app": "courier", "v": 3]) : parameters
/// }
/// ```
public struct ParameterInterceptor: Sendable, NamedComponent {
    let body: @Sendable (Parameters, ParameterLocation, CallContext) async throws -> Parameters
    let componentName: ComponentName

    /// Wraps a closure that returns the parameters to encode.
    /// - Parameters:
    ///   - name: A name for errors and logs; by default the place the closure was written.
    ///   - fileID: Where the closure was written, for the default name; leave it out.
    ///   - line: The line the closure was written on; leave it out.
    ///   - body: Returns the parameters to encode.
    public init(
        name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        _ body: @escaping @Sendable (Parameters, ParameterLocation, CallContext) async throws -> Parameters
    ) {
        self.body = body
        self.componentName = ComponentName(name, kind: "ParameterInterceptor", fileID: fileID, line: line)
    }

    /// Returns the parameters to encode.
    /// - Throws: Stops the call with ``CourierError/Code/invalidRequest``,
    ///   naming this interceptor in ``CourierError/thrownBy``.
    public func intercept(_ parameters: Parameters, at location: ParameterLocation, context: CallContext)
        async throws -> Parameters
    {
        try await body(parameters, location, context)
    }
}
