import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What an ``Authenticator`` needs to know about your credentials: how to
/// put one on a request, how to get a new one, when one is expired, and
/// which failures mean "not authenticated".
///
/// Often an actor that also stores the credential for the next launch;
/// `apply`, `isExpired` and `isAuthenticationFailure` are plain functions of
/// their arguments (an actor implements them `nonisolated`), so that a call
/// with a valid credential never waits for anything. Only `refresh` is
/// asynchronous, and ``Authenticator`` runs it once for any number of calls.
///
/// ```swift
/// struct Session: Sendable { var access: String; var refresh: String; var expires: Date }
///
/// actor SessionProvider: CredentialProvider {
///     let client: APIClient   // the refresh endpoint goes through the same client
///     nonisolated func apply(_ session: Session, to request: inout HTTPRequest) throws {
///         request.headerFields[.authorization] = "Bearer \(session.access)"
///     }
///     func refresh(_ session: Session) async throws -> Session {
///         try await client.send(.refresh(token: session.refresh))
///     }
///     nonisolated func isExpired(_ session: Session, now: Date) -> Bool {
///         session.expires.timeIntervalSince(now) < 60   // refresh a minute early
///     }
/// }
/// ```
public protocol CredentialProvider: Sendable {
    /// The credential: a token, a token pair with its expiry, a signing key.
    associatedtype Credential: Sendable

    /// Puts the credential on a request, e.g. as `Authorization: Bearer …`.
    /// - Throws: Stops the call (``CourierError/Code/authentication``).
    func apply(_ credential: Credential, to request: inout HTTPRequest) throws

    /// Gets a new credential to replace `credential`, typically by calling a
    /// refresh endpoint (which may go through the same client: calls made
    /// while refreshing pass the ``Authenticator`` untouched).
    /// - Throws: A terminal failure: every call waiting for the refresh fails
    ///   with ``CourierError/Code/authentication``, this error underneath.
    func refresh(_ credential: Credential) async throws -> Credential

    /// Whether `credential` must be refreshed before it is used at `now`;
    /// return `true` a little early (a minute before the expiry) so that a
    /// request does not expire in flight. By default a credential never expires.
    func isExpired(_ credential: Credential, now: Date) -> Bool

    /// Whether a failed call failed because its credential was not accepted:
    /// by default, status 401. An API that answers 200 with a business code
    /// (`{"code": 4010, …}`) says so here:
    /// `error.code == .envelope && error.businessFailure?.code == 4010`.
    func isAuthenticationFailure(_ error: CourierError) -> Bool
}

extension CredentialProvider {
    /// Never expired: the credential is refreshed only after a 401.
    public func isExpired(_ credential: Credential, now: Date) -> Bool { false }

    /// Status 401.
    public func isAuthenticationFailure(_ error: CourierError) -> Bool {
        error.code == .status && error.response?.statusCode == 401
    }
}
