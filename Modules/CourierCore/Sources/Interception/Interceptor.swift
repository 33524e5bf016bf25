public import HTTPTypes

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
/// `next` answers the call itself — its response is validated like one from
/// the network, and counts as no attempt; one that throws stops it (throw
/// ``CourierError/vetoed(_:)`` to say why), and the error names it in
/// ``CourierError/thrownBy``.
///
/// A per-call interceptor may call `next` more than once (refresh a token,
/// then replay). Every `next` runs the attempt loop, and they all share the
/// call's attempt count and retry deadline: attempt numbers go on, the retry
/// policy counts every attempt of the call against its limit, and nothing is
/// sent once the deadline has passed.
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
///
/// A per-attempt interceptor runs after the response cache and coalescing
/// have decided whose the call's response is: it says in
/// ``CredentialDeclaring/credentialIdentity(for:)`` what it adds
/// (``CredentialIdentity``). The default, ``CredentialIdentity/undeclared``,
/// keeps its calls out of the cache and out of coalescing. A per-call
/// interceptor's changes are on the request the cache and coalescing see,
/// so its declaration is not asked.
public protocol Interceptor: CredentialDeclaring {
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
///
/// An error the closure throws names the interceptor in
/// ``CourierError/thrownBy``: by the name given here, or by the file and line
/// where the closure was written.
public struct ClosureInterceptor: Interceptor, NamedComponent, AuthenticatingInterceptor {
    let body: @Sendable (OutgoingRequest, CallContext, InterceptorNext) async throws -> RawResponse
    let componentName: ComponentName
    /// Set by ``Interceptor/bearer(fileID:line:_:)``.
    package var authenticatesRequests = false
    /// What ``credentialIdentity(for:)`` answers: ``CredentialIdentity/undeclared``
    /// unless ``declaring(_:)`` or the maker said otherwise.
    var identity: @Sendable (CallContext) async throws -> CredentialIdentity = { _ in .undeclared }

    /// Makes an interceptor of a closure: for one-off behaviour that needs no
    /// type of its own (``Interceptor/intercept(name:fileID:line:_:)`` reads
    /// better in a list).
    /// - Parameters:
    ///   - name: A name for errors and logs; by default the place the closure was written.
    ///   - fileID: Where the closure was written, for the default name; leave it out.
    ///   - line: The line the closure was written on; leave it out.
    ///   - body: Handles the request, usually by calling `next`.
    public init(
        name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        _ body:
            @escaping @Sendable (OutgoingRequest, CallContext, InterceptorNext) async throws -> RawResponse
    ) {
        self.body = body
        self.componentName = ComponentName(name, kind: "ClosureInterceptor", fileID: fileID, line: line)
    }

    /// Calls the closure.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: InterceptorNext)
        async throws
        -> RawResponse
    {
        try await body(request, context, next)
    }

    /// What the closure declares (``declaring(_:)``); by default
    /// ``CredentialIdentity/undeclared``.
    public func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity {
        try await identity(context)
    }

    /// A copy that declares `identity` for every call: ``CredentialIdentity/none``
    /// for a per-attempt interceptor that adds no credential (logging,
    /// metrics, a trace header), so that its calls can still be cached and
    /// coalesced.
    /// - Parameter identity: What the closure adds.
    /// - Returns: The interceptor, declaring it.
    public func declaring(_ identity: CredentialIdentity) -> ClosureInterceptor {
        var copy = self
        copy.identity = { _ in identity }
        return copy
    }
}

extension Interceptor where Self == ClosureInterceptor {
    /// An interceptor made from a closure.
    /// - Parameters:
    ///   - name: A name for errors and logs; by default the place the closure was written.
    ///   - fileID: Where the closure was written, for the default name; leave it out.
    ///   - line: The line the closure was written on; leave it out.
    ///   - body: Handles the request, usually by calling `next`.
    /// - Returns: The interceptor.
    public static func intercept(
        name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        _ body:
            @escaping @Sendable (OutgoingRequest, CallContext, InterceptorNext) async throws -> RawResponse
    ) -> ClosureInterceptor {
        ClosureInterceptor(name: name, fileID: fileID, line: line, body)
    }

    /// Sets these header fields on every request (replacing fields of the
    /// same name); it declares the credential fields among them
    /// (``CredentialIdentity/fields(_:in:)``).
    public static func headers(_ fields: HTTPFields) -> ClosureInterceptor {
        var interceptor = ClosureInterceptor(name: "headers") { request, _, next in
            var request = request
            request.head.headerFields.setAll(fields)
            return try await next(request)
        }
        interceptor.identity = { context in .fields(fields, in: context.credentialFields) }
        return interceptor
    }

    /// Sets `Authorization: Bearer <token>` with a token fetched for each
    /// request; an error the token closure throws stops the call, naming the
    /// place this interceptor was made.
    ///
    /// It declares the token's digest (``CredentialIdentity/digest(of:)``).
    /// In a call the response cache or coalescing shares, the token it
    /// sends must be the one it declared: when the closure returns another
    /// (the user changed in between), the call fails with
    /// ``CourierError/Code/credentialMismatch`` and nothing is sent.
    public static func bearer(
        fileID: StaticString = #fileID, line: UInt = #line,
        _ token: @escaping @Sendable () async throws -> String
    ) -> ClosureInterceptor {
        var interceptor = ClosureInterceptor(name: "bearer token (made at \(fileID):\(line))") {
            request, context, next in
            var request = request
            let current = try await token()
            try CredentialIdentity.digest(of: current).expectDeclared(in: context, request: request.head)
            request.head.headerFields[.authorization] = try RequestHeadCheck.checkedValue(
                "Bearer \(current)", for: .authorization)
            return try await next(request)
        }
        interceptor.authenticatesRequests = true
        // The token's owner, for a cache or coalescing: the token it would send now.
        interceptor.identity = { _ in .digest(of: try await token()) }
        return interceptor
    }
}

/// An interceptor that puts a credential on requests (`Authenticator`,
/// ``Interceptor/bearer(fileID:line:_:)``): a response cache treats the
/// responses to its calls as someone's own.
package protocol AuthenticatingInterceptor: Interceptor {
    /// Whether this one does.
    var authenticatesRequests: Bool { get }
}
