import HTTPTypes

/// Whose credential a component puts on a call's requests, said before the
/// response cache and coalescing decide whose the response is.
///
/// The cache reads, and coalescing joins identical calls in flight, before
/// the attempt loop runs. What the request carries by then (fields the
/// endpoint, its node and the per-call interceptors set, the cookie jar's
/// cookies) they see for themselves. What is added later — by a per-attempt
/// interceptor or a plugin's `prepare` — they learn only from this
/// declaration, which the pipeline asks for once per pass, before either
/// decides:
///
/// - ``none``: the component adds or changes no credential (an observer, a
///   trace header). The pipeline holds it to that: when every component of
///   a shared call says `none` and the credential fields still change on
///   the way to the transport, the call fails
///   (``CourierError/Code/invalidRequest``) and nothing is sent.
/// - ``principal(_:)``: the component adds the credential of this
///   principal. The cache key and the coalescing key include it, so calls
///   of two principals never share a response.
/// - ``undeclared``: the component may change credentials and cannot say
///   whose — the default of ``Plugin`` and ``Interceptor``. A call it takes
///   part in is neither answered from nor stored in a cache, and never
///   coalesced: sharing fails closed.
///
/// A principal is a name, not a secret: an account id, or ``digest(of:)``
/// of the token. The pipeline hashes it again before it goes into a key.
public enum CredentialIdentity: Sendable, Hashable {
    /// Adds or changes no credential.
    case none
    /// Adds the credential of this principal.
    case principal(String)
    /// May add or change a credential, and cannot say whose.
    case undeclared

    /// The principal named by the SHA-256 of a secret (a token, a key):
    /// two secrets are two principals, and the name reveals neither.
    /// - Parameter secret: The credential as it goes on the request.
    /// - Returns: `.principal` with the secret's digest in hexadecimal.
    public static func digest(of secret: String) -> CredentialIdentity {
        .principal(SHA256.hex(Array(secret.utf8)))
    }

    /// The principal of the credential fields in `fields` (`Authorization`,
    /// `Proxy-Authorization`, `Cookie`), or ``none`` when there are none:
    /// for a component that sets fields it knows ahead of time.
    /// - Parameter fields: The fields the component sets.
    /// - Returns: The digest of the credential fields' names and values.
    public static func fields(_ fields: HTTPFields) -> CredentialIdentity {
        let lines = CredentialFields.lines(fields)
        return lines.isEmpty ? .none : digest(of: lines)
    }
}

/// A component that says whose credential it puts on requests
/// (``CredentialIdentity``). ``Plugin`` and ``Interceptor`` refine it.
public protocol CredentialDeclaring: Sendable {
    /// Whose credential this component will put on the requests of the call
    /// `context` describes. Asked once per pass, before the cache reads and
    /// before coalescing joins, and only when one of them takes part.
    /// - Parameter context: The call.
    /// - Returns: The component's identity for this call.
    /// - Throws: Stops the call, as the component's own hook would.
    func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity
}

extension CredentialDeclaring {
    /// ``CredentialIdentity/undeclared``: a plugin or interceptor that does
    /// not say what it adds is assumed to add a credential whose owner
    /// nobody knows, so its calls are never shared (see ``CredentialIdentity``).
    public func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity {
        .undeclared
    }
}

/// The fields that say who is asking.
package enum CredentialFields {
    /// `Authorization`, `Proxy-Authorization` and `Cookie`.
    package static let names: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]

    /// `Name: value` for each credential field in `fields`, one per line, in
    /// the order the names are listed (values of one name in their order).
    package static func lines(_ fields: HTTPFields) -> String {
        var lines = ""
        for name in names {
            for value in fields[values: name] { lines += "\(name.canonicalName): \(value)\n" }
        }
        return lines
    }

    /// What tells the owner of `request`'s credential apart, for a key:
    /// `Principal: …` when an authenticator vouched for the credential fields
    /// the request carries now (a refreshed token of the same principal gives
    /// the same line), else the fields' own ``lines(_:)``.
    /// - Returns: The lines, and whether they name a signed principal.
    package static func identity(of request: OutgoingRequest) -> (lines: String, signed: Bool) {
        let lines = lines(request.head.headerFields)
        guard let signed = request.signedPrincipal, signed.fields == lines else { return (lines, false) }
        return ("Principal: \(signed.name)\n", true)
    }
}

/// A principal an ``Authenticator`` vouched for, with the credential fields
/// it signed the request with: when they change on the way, it no longer holds.
package struct SignedPrincipal: Sendable, Hashable {
    /// ``CredentialFields/lines(_:)`` of the head as signed.
    package let fields: String
    /// The signer and the principal, one per line.
    package let name: String

    package init(fields: String, name: String) {
        self.fields = fields
        self.name = name
    }
}
