@_spi(Locking) public import CourierCore
import HTTPTypes

/// Signs every call to the origins it serves with a credential and
/// refreshes it — once, however many calls need it — then replays the calls
/// that failed for want of it.
///
/// A per-call interceptor (register it in
/// ``/CourierCore/APIClient/Configuration/callInterceptors``), so the refresh and the
/// replay happen around the attempt loop, and the replay continues the
/// call's attempt count and retry deadline. What it does, in order:
/// - before sending, a call that finds the credential expired
///   (``CredentialProvider/isExpired(_:now:)``) refreshes it first; a call
///   that finds a refresh in flight waits for it — nothing is sent with a
///   credential about to be replaced;
/// - any number of calls that fail authentication
///   (``CredentialProvider/isAuthenticationFailure(_:)``, a 401 by default)
///   cause **one** refresh; each is replayed once with the new credential,
///   in the order they failed. A call signed with a credential older than
///   the current one is replayed without another refresh. A replay that
///   fails authentication again ends the call with that failure;
/// - a refresh that fails ends every waiting call, once, with
///   `CourierError.Code.authentication` (the refresh's error is
///   ``/CourierCore/CourierError/underlying``); none is replayed with the old credential;
/// - a loop guard: more than `maxRefreshes` refreshes within `window` ends
///   the call with `CourierError.Code.authentication` instead of
///   hammering the server (Alamofire's `excessiveRefresh`);
/// - a refresh that takes longer than `refreshTimeout` counts as failed.
///
/// Where the credential goes: only to the origins of its
/// ``AuthenticationScope`` (the nodes it was made for). A call to any other
/// origin passes unsigned, whichever client or endpoint it is registered on.
///
/// The refresh is a call of the client it serves: the provider's
/// ``CredentialProvider/refresh(_:through:)`` gets that client, with its
/// transport, plugins and retry policy — no second client. Calls made by the
/// refresh pass untouched (``/CourierCore/CallContext/isCredentialRefresh``), so the
/// refresh never waits for itself; an endpoint opts out with
/// ``/CourierCore/Endpoint/withoutAuthentication()``. Cancelling a waiting call ends that
/// call alone: the refresh and the other calls go on.
///
/// An authenticator may start without a credential — the client exists
/// before the user signs in: its calls fail with
/// `CourierError.Code.authentication` ("no credential") until
/// ``replaceCredential(with:)`` gives it one; ``removeCredential()`` signs out.
/// A provider that can get a credential from nothing (an OAuth
/// client-credentials grant) conforms to ``InitialCredentialProvider``: then
/// the first call fetches it, as a refresh.
///
/// ```swift
/// let auth = Authenticator(SessionProvider(), for: [api])
/// let client = APIClient(configuration: .init(transport: CurlTransport.shared,
///                                             callInterceptors: [auth]))
/// auth.replaceCredential(with: try await client.send(.signIn(user, password)))
/// ```
public final class Authenticator<Provider: CredentialProvider>: Interceptor, AuthenticatingInterceptor {
    /// The credential, the refresh and its waiters.
    public typealias Credential = Provider.Credential
    /// The rules keep an optional credential: `nil` until the first is given.
    typealias Rules = AuthenticatorState<Credential?>
    typealias Signed = Rules.Signed
    typealias Waiter = Rules.Waiter

    struct Inner: ~Copyable {
        var rules: Rules
        /// The waits of calls waiting for a refresh, by the rules' waiter numbers.
        var waits = PendingWaits<Result<Signed, CourierError>>()
        /// The error of the last refresh, when it failed.
        var refreshFailure: CourierError?
    }

    let provider: Provider
    /// The origins the credential may go to.
    public let scope: AuthenticationScope
    let clock: any CourierClock
    let refreshTimeout: Duration
    let inner: Locked<Inner>

    /// Creates an authenticator.
    /// - Parameters:
    ///   - provider: Applies, refreshes and judges credentials.
    ///   - scope: The origins the credential goes to: the nodes it was made
    ///     for (`[api]`), or ``AuthenticationScope/origins(_:)``.
    ///   - credential: The credential to start with (e.g. the stored one; an
    ///     expired one is refreshed before the first call), or `nil` until
    ///     ``replaceCredential(with:)`` gives one — or, for an
    ///     ``InitialCredentialProvider``, until the first call fetches one.
    ///   - maxRefreshes: The loop guard: at most this many refreshes…
    ///   - window: …within this time; then calls fail instead. 5 in 30 s.
    ///   - refreshTimeout: A refresh that has not ended by then fails: 60 s.
    ///   - clock: For expiry, the loop guard's window and the refresh timeout.
    public init(
        _ provider: Provider, for scope: AuthenticationScope, credential: Credential? = nil,
        maxRefreshes: Int = 5,
        window: Duration = .seconds(30), refreshTimeout: Duration = .seconds(60),
        clock: any CourierClock = SystemClock()
    ) {
        self.provider = provider
        self.scope = scope
        self.clock = clock
        self.refreshTimeout = refreshTimeout
        self.inner = Locked(
            Inner(
                rules: AuthenticatorState(credential: credential, maxRefreshes: maxRefreshes, window: window))
        )
    }

    /// It does: responses to its calls are someone's own.
    package var authenticatesRequests: Bool { true }

    /// The provider's principal for the current credential
    /// (``CredentialProvider/principal(of:)``), or else the credential fields
    /// it puts on a request (``/CourierCore/CredentialIdentity/fields(_:in:)``);
    /// ``/CourierCore/CredentialIdentity/none`` for an endpoint that does not
    /// authenticate, a node outside the scope, or no credential yet;
    /// ``/CourierCore/CredentialIdentity/undeclared`` when the provider signs something
    /// other than the credential fields (the URL, a field of its own), which
    /// the pipeline cannot tell apart.
    ///
    /// Registered per attempt in a call the cache or coalescing shares, it
    /// sends only what it declared: a credential refreshed in between must
    /// have the same principal, or the call fails with
    /// ``/CourierCore/CourierError/Code/credentialMismatch`` and nothing is sent.
    public func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity {
        guard context.authenticates, scope.contains(context), let credential,
            !AuthenticationRefresh.inProgress.contains(ObjectIdentifier(self))
        else { return .none }
        return identity(of: credential, context)
    }

    /// Whose `credential` is, as ``credentialIdentity(for:)`` declares it.
    func identity(of credential: Credential, _ context: CallContext) -> CredentialIdentity {
        if let principal = provider.principal(of: credential) { return .principal(principal) }
        var probe = HTTPRequest(method: .get, scheme: "https", authority: "identity.invalid", path: "/")
        do {
            try provider.apply(credential, to: &probe)
        } catch {
            return .undeclared
        }
        let credentials = context.credentialFields
        let identity = CredentialIdentity.fields(probe.headerFields, in: credentials)
        let onlyCredentialFields = probe.headerFields.allSatisfy { credentials.contains($0.name) }
        return identity == .none || !onlyCredentialFields || probe.path != "/" ? .undeclared : identity
    }

    /// The credential in use now (the last refreshed one); `nil` before the first.
    public var credential: Credential? { inner.withLock { $0.rules.current.credential } }

    /// How many calls are waiting for a refresh now.
    public var waitingCalls: Int { inner.withLock { $0.rules.waiters.count } }

    /// Signs the request, sends it, and refreshes and replays once after an
    /// authentication failure; see the type's documentation.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: InterceptorNext)
        async throws -> RawResponse
    {
        guard context.authenticates else { return try await next(request) }
        // Never to an origin the credential was not given for.
        guard scope.contains(request.head) else { return try await unsigned(request, next) }
        // The fast path — a valid credential, no refresh in flight — takes
        // the lock once and suspends nowhere.
        let usable = inner.withLock { $0.rules.usable }
        // Calls the refresh makes pass untouched; one can only be running
        // while a refresh is in flight, so only then is the task asked.
        if usable == nil, AuthenticationRefresh.inProgress.contains(ObjectIdentifier(self)) {
            return try await next(request)
        }
        let signed: Signed
        if let usable, let credential = usable.credential, !provider.isExpired(credential, now: clock.date) {
            signed = usable
        } else if let usable, usable.credential == nil, !fetchesInitialCredential {
            throw Self.noCredential(request)
        } else {
            signed = try await credentialToSend(context)
        }
        do {
            return try await next(try sign(request, with: signed, context))
        } catch let failure as CourierError where provider.isAuthenticationFailure(failure) {
            let fresh = try await credentialAfterFailure(
                of: signed, failure, context)
            return try await next(try sign(request, with: fresh, context))
        }
    }

    /// Sends a request to an origin outside the scope, unsigned; a failure
    /// that means "not authenticated" (a 401) says why nothing was signed,
    /// since a node left out of the scope by mistake looks like a bad token.
    private func unsigned(_ request: OutgoingRequest, _ next: InterceptorNext) async throws -> RawResponse {
        do {
            return try await next(request)
        } catch var failure as CourierError where provider.isAuthenticationFailure(failure) {
            let origin = AuthenticationScope.origin(of: request.head)
            failure.message +=
                " (sent without a credential: the Authenticator signs only "
                + "\(scope.origins.sorted().joined(separator: ", ")), not \(origin))"
            throw failure
        }
    }

    // MARK: - Getting a credential

    /// The credential to send with when the fast path found none: expired, or a refresh in flight.
    func credentialToSend(_ context: CallContext) async throws(CourierError)
        -> Signed
    {
        let now = clock.date
        let current = inner.withLock { $0.rules.current }
        // No credential yet: a provider that can fetch one does, as a refresh.
        let expired = current.credential.map { provider.isExpired($0, now: now) } ?? fetchesInitialCredential
        let time = clock.now
        let step = inner.withLock { inner in
            let step = inner.rules.prepare(checked: current.generation, expired: expired, now: time)
            Self.open(step, &inner)
            return step
        }
        return try await follow(step, failure: nil, context)
    }

    /// The credential to replay with after `signed` was refused.
    func credentialAfterFailure(
        of signed: Signed, _ failure: CourierError, _ context: CallContext
    )
        async throws(CourierError) -> Signed
    {
        let time = clock.now
        let step = inner.withLock { inner in
            let step = inner.rules.authenticationFailed(signed, now: time)
            Self.open(step, &inner)
            return step
        }
        return try await follow(step, failure: failure, context)
    }

    /// Makes a slot for a step that waits (under the lock, before anyone can end it).
    static func open(_ step: Rules.Step, _ inner: inout Inner) {
        switch step {
        case .wait(let waiter), .refresh(_, let waiter): inner.waits.open(waiter)
        case .use, .refuse, .refreshFailed: break
        }
    }

    func follow(
        _ step: Rules.Step, failure: CourierError?, _ context: CallContext
    )
        async throws(CourierError) -> Signed
    {
        switch step {
        case .use(let signed):
            return signed
        case .refuse(let refreshes):
            throw CourierError(
                .authentication, stage: .authentication,
                message:
                    "the credential was refreshed \(refreshes) times within \(inner.withLock { $0.rules.window }); not again (loop guard)",
                response: failure?.response, underlying: failure)
        case .refreshFailed:
            var error =
                inner.withLock { $0.refreshFailure }
                ?? CourierError(
                    .authentication, stage: .authentication, message: "refreshing the credential failed")
            error.response = failure?.response
            error.request = failure?.request
            throw error
        case .refresh(let signed, let waiter):
            startRefresh(from: signed, for: context)
            return try await wait(waiter, failure: failure, context.cancellation).get()
        case .wait(let waiter):
            return try await wait(waiter, failure: failure, context.cancellation).get()
        }
    }

    func sign(_ request: OutgoingRequest, with signed: Signed, _ context: CallContext)
        throws(CourierError) -> OutgoingRequest
    {
        guard let credential = signed.credential else { throw Self.noCredential(request) }
        // Per attempt in a shared call: what is sent is what was declared.
        if context.declaredCredential != nil {
            try identity(of: credential, context).expectDeclared(in: context, request: request.head)
        }
        let unsigned = request.head.headerFields
        var request = request
        do {
            try provider.apply(credential, to: &request.head)
        } catch {
            throw CourierError(
                .authentication, stage: .authentication, message: "applying the credential failed: \(error)",
                request: request.head, underlying: error)
        }
        // The principal stands for the credential in cache and coalescing
        // keys, as long as the request carries exactly these fields.
        if let principal = provider.principal(of: credential) {
            request.signedPrincipal = SignedPrincipal(
                principal, by: String(reflecting: Provider.self), signed: request.head.headerFields,
                unsigned: unsigned, context.credentialFields)
        }
        return request
    }

    static func noCredential(_ request: OutgoingRequest) -> CourierError {
        CourierError(
            .authentication, stage: .authentication,
            message:
                "no credential: the Authenticator has none yet (or it was removed); give it one with "
                + "replaceCredential(with:) once the user has signed in",
            request: request.head)
    }
}
