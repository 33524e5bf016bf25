public import HTTPTypes

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

    /// The principal of the credential fields among `fields`
    /// (``CredentialFields``), or ``none`` when there are none: for a
    /// component that sets fields it knows ahead of time.
    /// - Parameters:
    ///   - fields: The fields the component sets.
    ///   - credentials: Which fields carry credentials: the call's
    ///     (``CallContext/credentialFields``), the standard ones by default.
    /// - Returns: The digest of the credential fields' names and values.
    public static func fields(_ fields: HTTPFields, in credentials: CredentialFields = .standard)
        -> CredentialIdentity
    {
        let lines = credentials.lines(fields)
        return lines.isEmpty ? .none : digest(of: lines)
    }

    /// Holds a component to what it declared for the pass it is part of:
    /// call it with the identity of the credential about to be sent, read
    /// again to send it (a token source may have switched users since the
    /// declaration keyed a shared call).
    /// - Parameters:
    ///   - context: The attempt's context, which carries the component's
    ///     declaration when the pass is shared (``CallContext/declaredCredential``).
    ///   - request: The request, for the error.
    /// - Throws: ``CourierError/Code/credentialMismatch`` when the pass is
    ///   shared and this is not what the component declared: nothing is sent.
    public func expectDeclared(in context: CallContext, request: HTTPRequest? = nil) throws(CourierError) {
        guard let declared = context.declaredCredential, declared != self else { return }
        throw CourierError(
            .credentialMismatch, stage: .interception,
            message:
                "the credential about to be sent is not the one declared when the response cache or coalescing "
                + "keyed the call (the credential changed in between): nothing was sent",
            request: request)
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

/// A principal an `Authenticator` vouched for, with the credential fields
/// it signed the request with: when they change on the way, it no longer holds.
package struct SignedPrincipal: Sendable, Hashable {
    /// ``CredentialFields/lines(_:)`` of the head as signed.
    package let fields: String
    /// The signer, the principal, and the credential fields the request
    /// carried before it was signed (a key set by the endpoint is still
    /// someone's), one per line.
    package let name: String

    /// The principal `principal` of `signer`, vouched for on `signed`,
    /// which was `unsigned` before.
    package init(
        _ principal: String, by signer: String, signed: HTTPFields, unsigned: HTTPFields,
        _ credentials: CredentialFields
    ) {
        self.fields = credentials.lines(signed)
        self.name = "\(signer)\n\(principal)\n" + credentials.lines(unsigned)
    }
}
