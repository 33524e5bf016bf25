public import HTTPTypes

/// Which calls of an endpoint share one exchange with identical calls
/// already in flight (``Endpoint/coalesced(_:)``).
///
/// Calls are identical when their request keys are — method, normalised
/// URL, body, credential and content negotiation — and they come from the
/// same endpoint of the same client. The first call's attempt loop (its
/// retries and validation) runs once for all; each caller gets its own copy
/// of the response, validated again by its own call, or the same error. A
/// caller may cancel alone; the exchange stops only when every caller has
/// cancelled. A call with a streamed or file body is never coalesced.
public struct Coalescing: Sendable, Hashable, CustomStringConvertible {
    /// The methods whose calls coalesce; `nil` for every method.
    public let methods: Set<HTTPRequest.Method>?

    /// GET and HEAD only (the default): reading the same thing twice at
    /// once is never wanted, writing twice may be.
    public static let safeMethods = Coalescing(methods: [.get, .head])
    /// Every method — for a POST that only reads (a search, a GraphQL query).
    public static let anyMethod = Coalescing(methods: nil)

    /// Coalesces calls with one of `methods`.
    public init(methods: Set<HTTPRequest.Method>?) {
        self.methods = methods
    }

    /// `safeMethods`, `anyMethod` or the list of methods.
    public var description: String {
        guard let methods else { return "anyMethod" }
        if methods == [.get, .head] { return "safeMethods" }
        return methods.map(\.rawValue).sorted().joined(separator: ", ")
    }

    func applies(to method: HTTPRequest.Method) -> Bool { methods?.contains(method) ?? true }
}

extension Endpoint {
    /// A copy whose calls share one exchange with identical calls in flight;
    /// see ``Coalescing``.
    public func coalesced(_ coalescing: Coalescing = .safeMethods) -> Endpoint {
        var copy = self
        copy.spec.coalescing = coalescing
        return copy
    }
}

/// Runs the attempt loop for a call, or joins the identical one in flight:
/// same request key, same endpoint, same declared principals
/// (``InFlightCalls``). A pass whose per-attempt interceptors or plugins did
/// not declare what they add runs alone (``PassIdentity``). A step of an
/// endpoint that coalesces, except for downloads and streams.
struct CoalescingStep: CallTierStep, PassStep {
    let coalescing: Coalescing

    /// Before `.identity`: a call of a method that may share its exchange
    /// keys on whose it is.
    func begin(_ state: inout CallState) throws(CourierError) {
        if let method = state.request?.head.method, coalescing.applies(to: method) {
            state.scope.wantsIdentity = true
        }
    }

    nonisolated(nonsending) func call(_ request: OutgoingRequest, _ state: CallState, _ next: CallTierNext)
        async throws(CourierError) -> RawResponse
    {
        guard coalescing.applies(to: request.head.method), let identity = state.identity, identity.isDeclared,
            let requestKey = RequestKey(request, credentials: state.settings.credentials)
        else {
            return try await next(request, state)
        }
        let spec = state.plan.spec
        let key = InFlightCalls.Key(
            request: requestKey, endpoint: "\(spec.node.name) \(spec.route)", principals: identity.principals)
        return try await state.plan.call.services.inFlight.share(key, request, state, next)
    }
}
