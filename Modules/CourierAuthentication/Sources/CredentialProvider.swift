public import CourierCore
public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What an ``Authenticator`` needs to know about your credentials: how to
/// put one on a request, how to get a new one, when one is expired, which
/// failures mean "not authenticated", and whose a credential is.
///
/// Often an actor that also stores the credential for the next launch;
/// `apply`, `isExpired`, `isAuthenticationFailure` and `principal` are plain
/// functions of their arguments (an actor implements them `nonisolated`),
/// so that a call with a valid credential never waits for anything. Only
/// `refresh` is asynchronous, and ``Authenticator`` runs it once for any
/// number of calls.
///
/// ```swift
/// struct Session: Sendable { var userID: String; var access: String; var refresh: String; var expires: Date }
///
/// struct SessionProvider: CredentialProvider {
///     func apply(_ session: Session, to request: inout HTTPRequest) {
///         request.headerFields[.authorization] = "Bearer \(session.access)"
///     }
///     // The refresh is a call of the client the authenticator serves.
///     func refresh(_ session: Session, through client: APIClient) async throws -> Session {
///         try await client.send(.refresh(token: session.refresh))
///     }
///     func isExpired(_ session: Session, now: Date) -> Bool {
///         session.expires.timeIntervalSince(now) < 60   // refresh a minute early
///     }
///     // A refreshed token is the same user: the cache keeps the user's entries.
///     func principal(of session: Session) -> String? { session.userID }
/// }
/// ```
public protocol CredentialProvider: Sendable {
    /// The credential: a token, a token pair with its expiry, a signing key.
    associatedtype Credential: Sendable

    /// Puts the credential on a request, e.g. as `Authorization: Bearer …`.
    /// - Throws: Stops the call (`CourierError.Code.authentication`).
    func apply(_ credential: Credential, to request: inout HTTPRequest) throws

    /// Gets a new credential to replace `credential`, typically by calling a
    /// refresh endpoint through `client`: the client whose call needed the
    /// refresh, with its transport, plugins and retry policy. Calls made
    /// while refreshing pass the ``Authenticator`` untouched (they are not
    /// signed with the credential being replaced, and never wait for the
    /// refresh they are part of); their ``/CourierCore/CallContext/isCredentialRefresh``
    /// is `true`, for logs.
    /// - Throws: A terminal failure: every call waiting for the refresh fails
    ///   with `CourierError.Code.authentication`, this error underneath.
    func refresh(_ credential: Credential, through client: APIClient) async throws -> Credential

    /// Whether `credential` must be refreshed before it is used at `now`;
    /// return `true` a little early (a minute before the expiry) so that a
    /// request does not expire in flight. By default a credential never expires.
    func isExpired(_ credential: Credential, now: Date) -> Bool

    /// Whether a failed call failed because its credential was not accepted:
    /// by default, status 401. An API that answers 200 with a business code
    /// (`{"code": 4010, …}`) says so here:
    /// `error.code == .envelope && error.businessFailure?.code == 4010`.
    func isAuthenticationFailure(_ error: CourierError) -> Bool

    /// Whose `credential` is, in a name that stays the same when the
    /// credential is refreshed — an account or user id — or `nil` (the
    /// default) to be known by the credential itself.
    ///
    /// A response cache and coalescing tell users apart by the credential a
    /// request carries: without a principal, every refresh starts a user's
    /// cache entries anew. With one, the entries of a user survive the
    /// refresh, and a request is keyed by the principal as long as it
    /// carries exactly the credential the authenticator signed it with.
    /// Two users must never have the same principal: they would share
    /// responses.
    func principal(of credential: Credential) -> String?
}

extension CredentialProvider {
    /// Never expired: the credential is refreshed only after a 401.
    public func isExpired(_ credential: Credential, now: Date) -> Bool { false }

    /// Status 401.
    public func isAuthenticationFailure(_ error: CourierError) -> Bool {
        error.code == .status && error.response?.statusCode == 401
    }

    /// `nil`: a credential is known by itself, so a refreshed one is a new
    /// identity to the cache.
    public func principal(of credential: Credential) -> String? { nil }
}

/// A ``CredentialProvider`` that can get a credential from nothing — an
/// OAuth client-credentials grant, a token from a vault — so that an
/// ``Authenticator`` made without a credential fetches one on the first call
/// instead of failing. The fetch is a refresh in every other way: one for any
/// number of calls, through the client, within the refresh timeout, counted
/// by the loop guard; and after ``Authenticator/removeCredential()`` the next
/// call fetches again.
///
/// ```swift
/// struct ClientCredentials: InitialCredentialProvider {
///     func apply(_ token: String, to request: inout HTTPRequest) {
///         request.headerFields[.authorization] = "Bearer \(token)"
///     }
///     func initialCredential(through client: APIClient) async throws -> String {
///         try await client.send(.token(grant: "client_credentials")).accessToken
///     }
///     // A 401 later: the grant again (a client-credentials token has no refresh token).
///     func refresh(_ token: String, through client: APIClient) async throws -> String {
///         try await initialCredential(through: client)
///     }
/// }
/// let auth = Authenticator(ClientCredentials(), for: [.api])  // no credential: the first call fetches it
/// ```
public protocol InitialCredentialProvider: CredentialProvider {
    /// Gets a credential when the authenticator has none, through `client`
    /// (calls it makes pass the authenticator, as a refresh's do).
    /// - Throws: Every call waiting for it fails with
    ///   `CourierError.Code.authentication`, this error underneath.
    func initialCredential(through client: APIClient) async throws -> Credential
}
