/// What a ``Node`` does when its envelopes say a call failed with a given
/// business code — sign out on "not logged in", retry once after a
/// "session refreshed" — and the sentence users see for each code: so that
/// apps stop writing the same response handler on every endpoint.
///
/// ```swift
/// var api = Node("api", baseURL: "https://api.example.com/v1", envelope: .standard)
/// api.businessCodes.on(4010) { error, context in
///     await session.signOut()          // show the login screen
///     return .fail                     // the call fails with the business error
/// }
/// api.businessCodes.on(4012) { _, _ in
///     await session.renew()
///     return .replayOnce               // sent again once; a second 4012 fails
/// }
/// api.businessCodes.messages = { failure in
///     String(localized: "error.\(failure.code)", defaultValue: "\(failure.message ?? "Something went wrong")")
/// }
/// ```
///
/// A code matches whether the failure came as a 2xx envelope or inside a
/// 4xx/5xx body (``CourierError/businessFailure``). Every error the node's
/// calls end with that carries a business failure gets
/// ``CourierError/userMessage`` from ``messages``.
public struct BusinessCodes: Sendable {
    private var actions: [EnvelopeCode: @Sendable (CourierError, CallContext) async -> BusinessCodeAction] =
        [:]
    /// The sentence for users for a business failure (localize it here);
    /// `nil` leaves ``CourierError/userMessage`` unset.
    public var messages: (@Sendable (CourierError.BusinessFailure) -> String?)?

    /// No codes, no messages.
    public init() {}

    /// Runs `action` when a call fails with one of `codes`; what it returns
    /// decides what the call does next.
    public mutating func on(
        _ codes: EnvelopeCode...,
        action: @escaping @Sendable (CourierError, CallContext) async -> BusinessCodeAction
    ) {
        for code in codes { actions[code] = action }
    }

    /// Whether any code or a message provider is set.
    public var isEmpty: Bool { actions.isEmpty && messages == nil }

    func action(for code: EnvelopeCode) -> (
        @Sendable (CourierError, CallContext) async -> BusinessCodeAction
    )? {
        actions[code]
    }
}

/// What a call does after a business code's action ran.
public struct BusinessCodeAction: Sendable, Hashable {
    let replays: Bool

    /// The call fails with the business error.
    public static let fail = BusinessCodeAction(replays: false)
    /// The call is sent again, once (its attempts go on counting); the same
    /// code again then fails it.
    public static let replayOnce = BusinessCodeAction(replays: true)
}

/// The per-call interceptor a node's ``BusinessCodes`` become: first among
/// the node's, around the node's and the endpoint's other interceptors and
/// the attempt loop.
struct BusinessCodeRouter: Interceptor {
    let codes: BusinessCodes

    func intercept(_ request: OutgoingRequest, context: CallContext, next: InterceptorNext) async throws
        -> RawResponse
    {
        // A code that already had its replay fails the call, its action not run again.
        var replayed: Set<EnvelopeCode> = []
        while true {
            do {
                return try await next(request)
            } catch var error as CourierError {
                guard let failure = error.businessFailure else { throw error }
                if !replayed.contains(failure.code), !error.isCancelled,
                    let action = codes.action(for: failure.code),
                    await action(error, context).replays
                {
                    replayed.insert(failure.code)
                    continue
                }
                error.userMessage = error.userMessage ?? codes.messages?(failure)
                throw error
            }
        }
    }
}
