import CourierCore
import HTTPTypes

/// What never appears in what Courier's plugins write — log lines, curl
/// commands, span attributes, error descriptions: credentials in header
/// fields, tokens in query parameters, passwords in URLs, secret fields in
/// JSON and form bodies. Each is replaced by ``mask``; the name stays, so a
/// reader still sees that a token was sent.
///
/// ```swift
/// var redaction = Redaction.standard
/// redaction.headers.insert(HTTPField.Name("X-Session")!)
/// redaction.bodyFields.insert("pin")
/// let logging = LoggingPlugin(logger: logger, redaction: redaction)
/// ```
public struct Redaction: Sendable {
    /// Header fields whose values are hidden.
    public var headers: Set<HTTPField.Name>
    /// Query parameters whose values are hidden, compared without case.
    public var queryParameters: Set<String>
    /// JSON fields (at any depth) and form fields whose values are hidden,
    /// compared without case.
    public var bodyFields: Set<String>
    /// What a hidden value becomes.
    public var mask: String

    /// Creates a redaction; names are compared without case.
    public init(
        headers: Set<HTTPField.Name>, queryParameters: Set<String>, bodyFields: Set<String>,
        mask: String = "***"
    ) {
        self.headers = headers
        self.queryParameters = Set(queryParameters.map { $0.lowercased() })
        self.bodyFields = Set(bodyFields.map { $0.lowercased() })
        self.mask = mask
    }

    /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and
    /// API-key fields; query parameters and body fields named like tokens,
    /// keys, signatures and passwords.
    public static let standard = Redaction(
        headers: [
            .authorization, .proxyAuthorization, .cookie, .setCookie,
            HTTPField.Name("X-API-Key"), HTTPField.Name("X-Auth-Token"), HTTPField.Name("API-Key"),
            HTTPField.Name("X-Amz-Security-Token"),
        ].compactMap { $0 }.reduce(into: []) { $0.insert($1) },
        // The list error messages use too (CourierCore's SecretNames).
        queryParameters: SecretNames.queryParameters,
        bodyFields: [
            "password", "passwd", "secret", "token", "access_token", "refresh_token", "id_token",
            "client_secret", "api_key", "apikey", "pin", "otp",
        ])

    /// Whether `name`'s values are hidden.
    public func hides(_ name: HTTPField.Name) -> Bool { headers.contains(name) }

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
        return String(target[...mark]) + pairs(query, hidden: queryParameters)
    }

    /// `name=value&…` with the values of `hidden` names masked (names
    /// percent-decoded and compared without case): the masking error
    /// messages use too (CourierCore's SecretNames).
    func pairs(_ encoded: Substring, hidden: Set<String>) -> String {
        SecretNames.maskedQuery(encoded, hidden: hidden, mask: mask)
    }
}
