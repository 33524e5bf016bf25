@_spi(Locking) import CourierCore
import HTTPTypes

/// Whose a request's response is, as the cache sees it: nobody's, a
/// credential's (by its digest, which holds no secret), or someone's the
/// cache cannot tell — then it must neither read nor store.
enum RequestOwner: Equatable {
    /// No credential: anyone's.
    case nobody
    /// The credential's digest, and the field that made the request someone's (for messages).
    case credential(digest: String, field: String)
    /// Someone's, but whose the cache cannot tell.
    case unknown(CacheSkip)

    /// The owner of `request`, whose later components declared `identity`.
    /// - Parameters:
    ///   - request: The request as the per-call chain left it.
    ///   - identity: What the later components declared.
    ///   - call: The pass's call (its cookie jar, its credential fields,
    ///     whether it authenticates per call).
    init(_ request: OutgoingRequest, identity: PassIdentity, call: CacheCall) {
        // One of the later components may add a credential and did not say
        // whose: the cache cannot tell whose the response is.
        if let name = identity.undeclaredBy {
            self = .unknown(.undeclaredCredential(by: name))
            return
        }
        let head = request.head
        var lines: [String] = []
        var field: String?
        // The principal an authenticator signed the credential fields for
        // stands for them: a refreshed token keeps its user's entries.
        let model = call.credentials
        let credentials = model.identity(of: request)
        if credentials.signed {
            lines.append(credentials.lines)
            field = "a credential signed for a principal"
        } else if !credentials.lines.isEmpty {
            lines.append(credentials.lines)
            field = head.headerFields.first { model.contains($0.name) }?.name.rawName
        }
        // The jar's cookies join the request in the transport, after the
        // cache: whose the response is depends on them all the same.
        if let jar = call.cookies?.cookieField(for: head) {
            lines.append("Cookie (jar): \(jar)")
            field = field ?? "Cookie, from the cookie jar"
        }
        // Added after the cache saw the request, by per-attempt interceptors
        // and plugins: whose, they declared (CredentialIdentity).
        if let principals = identity.principals {
            lines.append("Declared: \(principals)")
            field = field ?? "a credential a plugin or per-attempt interceptor declares"
        }
        guard let field else {
            // A per-call authenticating interceptor ran and left no field the
            // cache can see: it signed the request some other way.
            self =
                call.authenticates && call.authenticatedPerCall
                ? .unknown(.undeclaredCredential(by: "a per-call authenticating interceptor")) : .nobody
            return
        }
        self = .credential(
            digest: SHA256.hex(Array(lines.sorted().joined(separator: "\n").utf8)), field: field)
    }
}
