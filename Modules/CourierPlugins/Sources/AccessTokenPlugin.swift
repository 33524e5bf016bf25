public import CourierCore
public import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Puts an access token on every request, in the scheme each endpoint asks
/// for: Moya's `AccessTokenPlugin`, with the token fetched asynchronously.
///
/// ```swift
/// let auth = AccessTokenPlugin { type, context in try await tokens.current(for: type) }
/// let client = APIClient(transport: CurlTransport.shared, decoder: .codable, plugins: [auth])
///
/// let profile = Endpoint<Profile>(.get("me"), on: .api)                     // Bearer (the default)
/// let legacy = Endpoint<Report>(.get("reports"), on: .api).authorization(.basic)
/// let status = Endpoint<Status>(.get("status"), on: .api).authorization(.none)
/// ```
///
/// An endpoint marked ``/CourierCore/Endpoint/withoutAuthentication()`` gets no
/// token, whatever its type. The value is checked before it is sent: a
/// token with a line break is refused (``/CourierCore/CourierError/Code/invalidHeader``),
/// never sent, never echoed. The token closure runs once per attempt, so a
/// retry sends the token current at that time.
///
/// A response cache and coalescing key each call by the token's digest
/// (``credentialIdentity(for:)``, which asks the closure once more before
/// they decide): calls with two tokens never share a response. In such a
/// call, each attempt's token must be the one declared: when the closure
/// returns another (it switched users in between), the call fails with
/// ``/CourierCore/CourierError/Code/credentialMismatch`` and nothing is sent.
///
/// For refreshing expired tokens, with one refresh for any number of
/// calls, use CourierAuthentication's `Authenticator`; this plugin only applies.
public struct AccessTokenPlugin: Plugin {
    /// The scheme for endpoints that name none: `.bearer` by default.
    public let defaultType: AuthorizationType
    private let token: @Sendable (AuthorizationType, CallContext) async throws -> String

    /// Creates the plugin.
    /// - Parameters:
    ///   - defaultType: The scheme for endpoints that do not name one.
    ///   - token: The token for a scheme and a call; for `.basic`, the
    ///     Base64 of `user:password` (``AuthorizationType/basicCredentials(user:password:)``).
    ///     An error it throws stops the call, naming the plugin.
    public init(
        defaultType: AuthorizationType = .bearer,
        token: @escaping @Sendable (AuthorizationType, CallContext) async throws -> String
    ) {
        self.defaultType = defaultType
        self.token = token
    }

    /// The digest of the `Authorization` value `prepare` would set now,
    /// ``/CourierCore/CredentialIdentity/none`` for an endpoint it leaves alone.
    public func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity {
        guard let value = try await authorization(context) else { return .none }
        return .digest(of: value)
    }

    /// Sets `Authorization: <scheme> <token>` unless the endpoint's type is
    /// `.none`; in a shared call, only the token it declared.
    public func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
        guard let value = try await authorization(context) else { return request }
        try CredentialIdentity.digest(of: value).expectDeclared(in: context, request: request)
        var request = request
        request.headerFields[.authorization] = value
        return request
    }

    /// The checked `Authorization` value for the call, or `nil` for none.
    private func authorization(_ context: CallContext) async throws -> String? {
        guard context.authenticates else { return nil }
        let type = (context.attachments.value(for: AuthorizationType.id) as? AuthorizationType) ?? defaultType
        guard let scheme = type.scheme else { return nil }
        return try RequestHeadCheck.checkedValue(
            "\(scheme) \(try await token(type, context))", for: .authorization)
    }
}

/// How an endpoint's requests are authorised: an open set.
public struct AuthorizationType: Hashable, Sendable, CustomStringConvertible, EndpointAttachmentKey {
    package typealias Value = AuthorizationType

    /// The scheme written before the token; `nil` for none.
    public let scheme: String?

    /// No `Authorization` field.
    public static let none = AuthorizationType(scheme: nil)
    /// `Authorization: Basic <token>`.
    public static let basic = AuthorizationType(scheme: "Basic")
    /// `Authorization: Bearer <token>`.
    public static let bearer = AuthorizationType(scheme: "Bearer")

    /// `Authorization: <scheme> <token>`, for schemes of your own (`Token`, `Digest`, `HMAC`).
    public static func custom(_ scheme: String) -> AuthorizationType { AuthorizationType(scheme: scheme) }

    /// The Base64 of `user:password`, the token `.basic` sends (RFC 7617).
    public static func basicCredentials(user: String, password: String) -> String {
        Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The scheme, or `none`.
    public var description: String { scheme ?? "none" }

    /// The key the type is kept under on an endpoint.
    static let id = ObjectIdentifier(AuthorizationType.self)
}

extension Endpoint {
    /// A copy whose requests an ``AccessTokenPlugin`` authorises with `type`
    /// (`.none` for a public endpoint).
    public func authorization(_ type: AuthorizationType) -> Endpoint {
        var copy = self
        copy.spec.attachments[AuthorizationType.self] = type
        return copy
    }
}
