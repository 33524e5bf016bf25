public import CourierAuthentication
@_spi(Locking) public import CourierCore
import Foundation
import HTTPTypes

/// Answers a server's `401` challenge with a user name and password — HTTP
/// Digest (RFC 7616: `SHA-256`, `MD5` and their `-sess` forms, `qop=auth`
/// and `auth-int`) or Basic (RFC 7617) — for the origins it is given, and
/// for no other, as Moya's `CredentialsPlugin` does, over every transport,
/// without the transport's own challenge handling.
///
/// Register it among the **per-attempt** interceptors, so it sees the
/// request as it is sent (a compressed body, for `auth-int`) and each retry
/// gets a fresh nonce count:
///
/// ```swift
/// let login = ChallengeAuthenticator(user: "ada", password: secret, for: [api])
/// let client = APIClient(configuration: .init(transport: CurlTransport.shared,
///                                             attemptInterceptors: [login]))
/// ```
///
/// What it does, per request to an origin of its ``scope``:
/// - it sends the request; on a `401` it reads the challenges
///   (``AuthenticationChallenge``), answers the strongest it supports —
///   Digest `SHA-256` before Digest `MD5` before Basic — and sends the
///   request once more, within the same attempt;
/// - it remembers the origin's protection space: later requests carry the
///   answer at once (Digest with the next nonce count, Basic within the
///   challenged path), so a signed-in client pays the extra round trip once;
/// - a `401` that says `stale=true` is answered once more with the new
///   nonce; any other `401` to an answer ends there (the credentials are
///   wrong) and the origin's space is forgotten;
/// - it never answers with Basic over plain `http` unless
///   `allowsBasicOverPlainHTTP` says so: the password would cross the
///   network readable. Such a challenge ends the call with
///   `CourierError.Code.authentication`, saying why.
///
/// Where credentials go: requests to other origins pass untouched, and a
/// request that already carries `Authorization` (the endpoint set one) is
/// left as it is. An answer goes only to the origin that challenged: a
/// redirect to another origin drops `Authorization`
/// (``/CourierCore/RedirectPolicy``), and a challenge from an origin the
/// attempt was redirected to is not answered (the answer would go to the
/// first hop's origin): the caller gets that `401`.
/// A request whose body is a one-shot stream cannot be sent twice: it goes
/// once, signed when the origin's space is known.
///
/// Caching and coalescing: it declares the principal of its credentials
/// (the digest of the user name and password), so calls of two users never
/// share a stored or in-flight response, and calls of one user do — though
/// every Digest answer differs (nonce count, client nonce).
public final class ChallengeAuthenticator: Interceptor, AuthenticatingInterceptor {
    /// The origins the credentials go to.
    public let scope: AuthenticationScope
    /// The user name.
    public let user: String
    private let password: String
    /// Answers only challenges of this realm; `nil` for any.
    public let realm: String?
    /// Whether a Basic challenge over plain `http` is answered.
    public let allowsBasicOverPlainHTTP: Bool
    private let makeClientNonce: @Sendable () -> String
    private let principal: String
    /// What each origin asked for last, by origin.
    private let spaces = Locked<[String: ProtectionSpace]>([:])

    /// What an origin's last answered challenge allows sending at once.
    enum ProtectionSpace: Sendable {
        /// A Digest challenge, and how many times its nonce has been used.
        case digest(DigestChallenge, used: Int)
        /// A Basic challenge, for the paths under these prefixes (RFC 7617 §2.2).
        case basic(paths: Set<String>)
    }

    /// Creates an authenticator.
    /// - Parameters:
    ///   - user: The user name. A Basic answer refuses one with `:` (RFC 7617 §2).
    ///   - password: The password; never logged, never sent but to `scope`.
    ///   - scope: The origins the credentials are for: the nodes (`[api]`),
    ///     or ``/CourierAuthentication/AuthenticationScope/origins(_:)``.
    ///   - realm: Answer only this realm's challenges; `nil` for any.
    ///   - allowsBasicOverPlainHTTP: Answer Basic over `http`, where the
    ///     password travels readable: for a test server or a trusted network.
    public convenience init(
        user: String, password: String, for scope: AuthenticationScope, realm: String? = nil,
        allowsBasicOverPlainHTTP: Bool = false
    ) {
        self.init(
            user: user, password: password, for: scope, realm: realm,
            allowsBasicOverPlainHTTP: allowsBasicOverPlainHTTP,
            clientNonce: { ChallengeAuthenticator.randomNonce() })
    }

    /// An authenticator with a client-nonce source of the test's choosing.
    package init(
        user: String, password: String, for scope: AuthenticationScope, realm: String?,
        allowsBasicOverPlainHTTP: Bool, clientNonce: @escaping @Sendable () -> String
    ) {
        self.user = user
        self.password = password
        self.scope = scope
        self.realm = realm
        self.allowsBasicOverPlainHTTP = allowsBasicOverPlainHTTP
        self.makeClientNonce = clientNonce
        self.principal = SHA256.hex(Array("\(user)\u{0}\(password)".utf8))
    }

    /// Responses to its calls are the user's own.
    package var authenticatesRequests: Bool { true }

    /// The principal of the credentials — a digest of the user name and
    /// password — for every call that authenticates; ``/CourierCore/CredentialIdentity/none``
    /// for an endpoint that opted out (``/CourierCore/Endpoint/withoutAuthentication()``).
    public func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity {
        context.authenticates ? .principal(principal) : .none
    }

    /// Sends the request, answering its origin's challenge; see the type's documentation.
    public func intercept(_ request: OutgoingRequest, context: CallContext, next: InterceptorNext)
        async throws -> RawResponse
    {
        guard context.authenticates, scope.contains(request.head),
            request.head.headerFields[.authorization] == nil
        else { return try await next(request) }
        let origin = AuthenticationScope.origin(of: request.head)
        let resendable = request.body?.isReplayable ?? true
        let credentials = context.credentialFields
        var sent = try await preemptive(request, origin: origin, credentials)
        var outcome = try await Self.exchange(sent.request, next)
        var answeredFresh = false
        // Only a challenge of the origin this interceptor sends to is answered.
        while resendable, let refusal = outcome.refusal,
            refusal.redirectedTo.map(AuthenticationScope.origin(of:)) ?? origin == origin
        {
            let challenges = AuthenticationChallenge.challenges(in: refusal.headerFields)
            guard let choice = try choose(challenges, for: request, refusal: refusal) else { break }
            let retryingStale: Bool =
                if case .digest(let digest) = choice, digest.stale, sent.answered { true } else { false }
            guard retryingStale || !answeredFresh else { break }
            if !retryingStale { answeredFresh = true }
            sent = try await answer(request, origin: origin, with: choice, credentials)
            outcome = try await Self.exchange(sent.request, next)
            if retryingStale, outcome.refusal != nil { break }
        }
        if sent.answered, let refusal = outcome.refusal,
            refusal.redirectedTo.map(AuthenticationScope.origin(of:)) ?? origin == origin
        {
            spaces.withLock { _ = $0.removeValue(forKey: origin) }
        }
        return try outcome.get()
    }

    // MARK: - Sending

    /// What a `next` gave: a response, or the error a per-call tier throws
    /// for a `401` (`refusal` reads the `401` from either).
    private typealias Outcome = Result<RawResponse, CourierError>

    /// Sends `request`. In the per-call tier a `401` arrives as an error
    /// carrying the response; it is kept, so the challenge can be answered.
    private static func exchange(_ request: OutgoingRequest, _ next: InterceptorNext) async throws -> Outcome
    {
        do {
            return .success(try await next(request))
        } catch let error as CourierError where error.response?.statusCode == 401 {
            return .failure(error)
        }
    }

    /// A request, and whether it carries an answer of ours.
    private struct Signed {
        var request: OutgoingRequest
        var answered: Bool
    }

    /// `request`, with the answer its origin's known space allows sending at once.
    private func preemptive(_ request: OutgoingRequest, origin: String, _ credentials: CredentialFields)
        async throws -> Signed
    {
        let known = spaces.withLock { (spaces: inout [String: ProtectionSpace]) -> ProtectionSpace? in
            guard let space = spaces[origin] else { return nil }
            if case .digest(let challenge, let used) = space {
                spaces[origin] = .digest(challenge, used: used + 1)
                return .digest(challenge, used: used + 1)
            }
            return space
        }
        switch known {
        case .digest(let challenge, let used):
            let value = try await digestAnswer(challenge, to: request, count: used)
            return Signed(request: try sign(request, with: value, credentials), answered: true)
        case .basic(let paths) where paths.contains(where: { (request.head.path ?? "/").hasPrefix($0) }):
            return Signed(
                request: try sign(request, with: try basicAnswer(request), credentials), answered: true)
        case .basic, nil:
            return Signed(request: request, answered: false)
        }
    }

    /// `request`, answering `choice` — remembered for the origin.
    private func answer(
        _ request: OutgoingRequest, origin: String, with choice: Choice, _ credentials: CredentialFields
    ) async throws -> Signed {
        switch choice {
        case .digest(let challenge):
            spaces.withLock { $0[origin] = .digest(challenge, used: 1) }
            let value = try await digestAnswer(challenge, to: request, count: 1)
            return Signed(request: try sign(request, with: value, credentials), answered: true)
        case .basic:
            let value = try basicAnswer(request)
            let directory = Self.directory(of: request.head.path ?? "/")
            spaces.withLock { spaces in
                var paths: Set<String> = []
                if case .basic(let known) = spaces[origin] { paths = known }
                paths.insert(directory)
                spaces[origin] = .basic(paths: paths)
            }
            return Signed(request: try sign(request, with: value, credentials), answered: true)
        }
    }

    /// The request with `Authorization: value`, its principal vouched for.
    private func sign(_ request: OutgoingRequest, with value: String, _ credentials: CredentialFields)
        throws(CourierError) -> OutgoingRequest
    {
        var signed = request
        signed.head.headerFields[.authorization] = try RequestHeadCheck.checkedValue(
            value, for: .authorization)
        signed.signedPrincipal = SignedPrincipal(
            principal, by: "ChallengeAuthenticator", signed: signed.head.headerFields,
            unsigned: request.head.headerFields, credentials)
        return signed
    }

    // MARK: - Choosing and answering

    /// The challenge answered.
    enum Choice {
        case digest(DigestChallenge)
        case basic
    }

    /// The strongest challenge offered that this authenticator answers.
    /// - Throws: `CourierError.Code.authentication` when the only one is
    ///   Basic over plain `http` and that is not allowed.
    private func choose(
        _ challenges: [AuthenticationChallenge], for request: OutgoingRequest, refusal: RawResponse
    ) throws(CourierError) -> Choice? {
        let inRealm = challenges.filter { challenge in
            realm.map { challenge.parameter("realm") == $0 } ?? true
        }
        let hashable = request.body?.isReplayable ?? true
        let digests = inRealm.compactMap { DigestChallenge($0, bodyHashable: hashable) }
        if let strongest = digests.max(by: { $0.algorithm.strength < $1.algorithm.strength }) {
            return .digest(strongest)
        }
        guard inRealm.contains(where: { $0.isScheme("Basic") }) else { return nil }
        guard allowsBasicOverPlainHTTP || request.head.scheme?.lowercased() == "https" else {
            throw CourierError(
                .authentication, stage: .authentication,
                message:
                    "\(AuthenticationScope.origin(of: request.head)) asks for Basic credentials over plain http, where the "
                    + "password would travel readable; ChallengeAuthenticator answers it only with "
                    + "allowsBasicOverPlainHTTP: true",
                request: request.head, response: refusal)
        }
        return .basic
    }

    private func digestAnswer(_ challenge: DigestChallenge, to request: OutgoingRequest, count: Int)
        async throws
        -> String
    {
        var bodyHash: String?
        if challenge.protection == .authInt {
            var hasher = challenge.algorithm.hasher()
            if let body = request.body {
                for try await chunk in body.chunks() { hasher.update(chunk) }
            }
            bodyHash = hasher.hex()
        }
        return challenge.authorization(
            user: user, password: password,
            for: .init(
                method: request.head.method.rawValue, uri: request.head.path ?? "/", bodyHash: bodyHash),
            count: count, cnonce: makeClientNonce())
    }

    private func basicAnswer(_ request: OutgoingRequest) throws(CourierError) -> String {
        guard !user.contains(":") else {
            throw CourierError(
                .authentication, stage: .authentication,
                message: "a user name with \":\" cannot be sent with Basic authentication (RFC 7617 §2)",
                request: request.head)
        }
        return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    // MARK: - Helpers

    /// The path up to its last `/` (the query dropped): Basic's protection space.
    static func directory(of path: String) -> String {
        let bare = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let slash = bare.lastIndex(of: "/") else { return "/" }
        return String(bare[...slash])
    }

    /// 16 random bytes in hexadecimal.
    static func randomNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return RequestKey.hex((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

extension Result where Success == RawResponse, Failure == CourierError {
    /// The `401` response, when the server refused: returned (per-attempt
    /// tier) or carried by the error (per-call tier).
    fileprivate var refusal: RawResponse? {
        let refused =
            switch self {
            case .success(let response): response
            case .failure(let error): error.response
            }
        return refused?.statusCode == 401 ? refused : nil
    }
}
