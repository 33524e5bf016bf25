import HTTPTypes

/// Wraps the sending of a request: may change it, short-circuit it, send it
/// again, or change the response.
///
/// Interceptors come in two tiers, as OkHttp draws them, and both are
/// registered on the client and on each endpoint (the client's run first):
/// - **per call** (``APIClient/Configuration/callInterceptors``): once around
///   the whole call, retries included: authentication, token refresh,
///   replaying after a business error;
/// - **per attempt** (``APIClient/Configuration/attemptInterceptors``): around
///   every network attempt: signing, logging, metrics.
///
/// Each tier is a `next` chain folded once: requests pass first-to-last,
/// responses come back last-to-first. An interceptor that does not call
/// `next` answers the call itself; one that throws stops it (throw
/// ``CourierError/vetoed(_:)`` to say why).
///
/// ```swift
/// struct Signing: Interceptor {
///     func intercept(_ request: OutgoingRequest, context: CallContext,
///                    next: InterceptorNext) async throws -> RawResponse {
///         var request = request
///         request.head.headerFields[.init("X-Signature")!] = sign(request.head)
///         return try await next(request)
///     }
/// }
/// ```
public protocol Interceptor: Sendable {
    /// Handles the request, usually by calling `next` with it (changed or not).
    /// - Throws: Stops the call; a non-``CourierError`` becomes
    ///   ``CourierError/Code/interceptor``.
    func intercept(_ request: OutgoingRequest, context: CallContext, next: InterceptorNext) async throws
        -> RawResponse
}

/// The rest of the chain: the next interceptor, and at the end the retry
/// loop (per-call tier) or the plugins and transport (per-attempt tier).
public typealias InterceptorNext = @Sendable (OutgoingRequest) async throws -> RawResponse

/// An interceptor made from a closure.
public struct ClosureInterceptor: Interceptor {
    let body: @Sendable (OutgoingRequest, CallContext, InterceptorNext) async throws -> RawResponse

    /// Wraps a closure.
    public init(
        _ body:
            @escaping @Sendable (OutgoingRequest, CallContext, InterceptorNext) async throws -> RawResponse
    ) {
        self.body = body
    }

    /// Calls the closure.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: InterceptorNext)
        async throws
        -> RawResponse
    {
        try await body(request, context, next)
    }
}

extension Interceptor where Self == ClosureInterceptor {
    /// An interceptor made from a closure.
    public static func intercept(
        _ body:
            @escaping @Sendable (OutgoingRequest, CallContext, InterceptorNext) async throws -> RawResponse
    ) -> ClosureInterceptor {
        ClosureInterceptor(body)
    }

    /// Sets these header fields on every request (replacing fields of the same name).
    public static func headers(_ fields: HTTPFields) -> ClosureInterceptor {
        ClosureInterceptor { request, _, next in
            var request = request
            request.head.headerFields.setAll(fields)
            return try await next(request)
        }
    }

    /// Sets `Authorization: Bearer <token>` with a token fetched for each request.
    public static func bearer(_ token: @escaping @Sendable () async throws -> String) -> ClosureInterceptor {
        ClosureInterceptor { request, _, next in
            var request = request
            request.head.headerFields[.authorization] = "Bearer \(try await token())"
            return try await next(request)
        }
    }
}

extension HTTPFields {
    /// Sets every field of `other`, replacing fields of the same names.
    mutating func setAll(_ other: HTTPFields) {
        for name in Set(other.map(\.name)) {
            self[values: name] = other[values: name]
        }
    }
}
