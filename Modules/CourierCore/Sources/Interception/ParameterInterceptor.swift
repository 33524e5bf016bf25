/// Where parameters are going when a parameter interceptor sees them.
public enum ParameterLocation: Sendable, Hashable {
    /// The query string.
    case query
    /// A form or JSON body.
    case body
}

/// Changes parameters before they are encoded: add common parameters, sign
/// them, drop empty ones. Runs once per call, client's first, then the
/// endpoint's, for the query and again for a form or JSON body.
///
/// ```swift
/// ParameterInterceptor { parameters, location, _ in
///     location == .query ? parameters.merging(["app": "courier", "v": 3]) : parameters
/// }
/// ```
public struct ParameterInterceptor: Sendable {
    let body: @Sendable (Parameters, ParameterLocation, CallContext) async throws -> Parameters

    /// Wraps a closure that returns the parameters to encode.
    public init(
        _ body: @escaping @Sendable (Parameters, ParameterLocation, CallContext) async throws -> Parameters
    ) {
        self.body = body
    }

    /// Returns the parameters to encode.
    /// - Throws: Stops the call with ``CourierError/Code/invalidRequest``.
    public func intercept(_ parameters: Parameters, at location: ParameterLocation, context: CallContext)
        async throws -> Parameters
    {
        try await body(parameters, location, context)
    }
}
