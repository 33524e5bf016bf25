public import HTTPTypes

/// What never appears in what Courier writes for people to read — a
/// ``CourierError``'s message, description and body excerpt, log lines, curl
/// commands, span attributes, metric labels: credentials in header fields,
/// tokens in query parameters, passwords in URLs, secret fields in JSON and
/// form bodies. Each is replaced by ``mask``; the name stays, so a reader
/// still sees that a token was sent.
///
/// Errors are masked with ``standard`` where they are made; the plugins
/// (`CourierPlugins`' logging, tracing and curl rendering) take a redaction
/// of their own, which may hide more.
///
/// ```swift
/// var redaction = Redaction.standard
/// redaction.headers.insert(HTTPField.Name("X-Session")!)
/// redaction.bodyFields.insert("pin")
/// let logging = LoggingPlugin(logger: logger, redaction: redaction)
/// ```
public struct Redaction: Sendable {
    /// Header fields whose values are hidden, compared as ``queryParameters``
    /// are: the standard ones are the credential fields
    /// (``CredentialFields/standard``).
    public var headers: Set<HTTPField.Name> { didSet { hiddenHeaders = Self.normalized(headers) } }
    /// Query parameters whose values are hidden. Names are compared without
    /// case and without `_`, `-` and `.`: `refreshToken`, `refresh_token`
    /// and `Refresh-Token` are one name, whichever is inserted.
    public var queryParameters: Set<String> { didSet { hiddenQuery = Self.normalized(queryParameters) } }
    /// JSON fields (at any depth) and form fields whose values are hidden,
    /// compared as ``queryParameters`` are.
    public var bodyFields: Set<String> { didSet { hiddenBody = Self.normalized(bodyFields) } }
    /// What a hidden value becomes.
    public var mask: String
    /// The names as they are compared (``normalized(_:)``).
    private(set) var hiddenQuery: Set<String>
    private(set) var hiddenBody: Set<String>
    private var hiddenHeaders: Set<String>

    /// Creates a redaction; names are compared without case and separators.
    public init(
        headers: Set<HTTPField.Name>, queryParameters: Set<String>, bodyFields: Set<String>,
        mask: String = "***"
    ) {
        self.headers = headers
        self.queryParameters = queryParameters
        self.bodyFields = bodyFields
        self.mask = mask
        self.hiddenQuery = Self.normalized(queryParameters)
        self.hiddenBody = Self.normalized(bodyFields)
        self.hiddenHeaders = Self.normalized(headers)
    }

    /// A name as names are compared: lowercased, without `_`, `-`, `.` and
    /// spaces — APIs spell one secret `refresh_token`, `refreshToken` and
    /// `Refresh-Token`.
    public static func normalized(_ name: some StringProtocol) -> String {
        String(name.lowercased().unicodeScalars.filter { !"_-. ".unicodeScalars.contains($0) })
    }

    private static func normalized(_ names: Set<String>) -> Set<String> { Set(names.map { normalized($0) }) }

    private static func normalized(_ names: Set<HTTPField.Name>) -> Set<String> {
        Set(names.map { normalized($0.canonicalName) })
    }

    /// The credential fields (``CredentialFields/standard``); query
    /// parameters and body fields named like tokens, keys, signatures and
    /// passwords.
    public static let standard = Redaction(
        headers: Set(CredentialFields.standard.names),
        queryParameters: [
            "token", "access_token", "refresh_token", "id_token", "session_token", "key", "api_key",
            "signature",
            "sig", "password", "secret", "client_secret", "x-amz-signature", "x-amz-security-token",
        ],
        bodyFields: [
            "password", "passwd", "passphrase", "secret", "token", "access_token", "refresh_token",
            "id_token",
            "session_token", "client_secret", "api_key", "private_key", "authorization", "pin", "otp",
        ])

    /// Whether `name`'s values are hidden, in whatever spelling.
    public func hides(_ name: HTTPField.Name) -> Bool {
        headers.contains(name) || hiddenHeaders.contains(Self.normalized(name.canonicalName))
    }

    /// This redaction, hiding the credential fields of `credentials` too:
    /// what a plugin shows of a call hides the fields the call's client
    /// declared (``CallContext/credentialFields``).
    public func hiding(_ credentials: CredentialFields) -> Redaction {
        guard !credentials.names.allSatisfy(hides) else { return self }
        var copy = self
        copy.headers.formUnion(credentials.names)
        return copy
    }

    /// The fields as `Name: value` lines, hidden values masked.
    public func lines(_ fields: HTTPFields) -> [String] {
        fields.map { "\($0.name.rawName): \(hides($0.name) ? mask : $0.value)" }
    }

    /// The request's URL with the password of any user info and the values
    /// of hidden query parameters masked.
    public func url(_ request: HTTPRequest) -> String {
        var authority = request.authority ?? ""
        if let at = authority.lastIndex(of: "@") {
            authority = mask + authority[at...]
        }
        return "\(request.scheme ?? "https")://\(authority)\(path(request.path ?? ""))"
    }

    /// A request target (`/path?query`) with hidden query parameters' values masked.
    public func path(_ target: String) -> String {
        guard let mark = target.firstIndex(of: "?") else { return target }
        let query = target[target.index(after: mark)...]
        return String(target[...mark]) + pairs(query, hidden: hiddenQuery)
    }

    /// `name=value&…` with the values of `hidden` names masked (names
    /// percent-decoded and ``normalized(_:)``, as `hidden` is).
    package func pairs(_ encoded: Substring, hidden: Set<String>) -> String {
        encoded.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<equals])
            let decoded = Self.normalized(name.percentDecoded(plusIsSpace: true) ?? name)
            return hidden.contains(decoded) ? "\(name)=\(mask)" : String(pair)
        }.joined(separator: "&")
    }

    /// `url` (absolute, or a reference as a `Location` gives it) with any
    /// user information and the values of hidden query parameters masked;
    /// names and the rest of the URL stay, so a reader still sees the shape.
    /// What errors show of a URL.
    public func url(_ url: some StringProtocol) -> String {
        var text = String(url)
        // User information: between "//" and the first "@" of the authority.
        if let slashes = text.firstRange(of: "//") {
            let authorityEnd =
                text[slashes.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" }
                ?? text.endIndex
            if let at = text[slashes.upperBound..<authorityEnd].lastIndex(of: "@") {
                text.replaceSubrange(slashes.upperBound..<at, with: mask)
            }
        }
        guard let mark = text.firstIndex(of: "?") else { return text }
        let fragment = text[mark...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: mark)..<fragment]
        return String(text[...mark]) + pairs(query, hidden: hiddenQuery) + String(text[fragment...])
    }
}
