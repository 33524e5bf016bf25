/// The names whose values courier-mock keeps out of what it writes for
/// people and files — the HAR export and recorded contract files: credential
/// header fields, token query parameters, secret JSON and form fields.
///
/// The lists are Courier's own `Redaction.standard` (CourierCore; its
/// header fields are Courier's `CredentialFields`), written here again
/// because courier-mock imports none of Courier's client modules — the
/// proof shares no code with what it proves; the end-to-end suite fails
/// when the two differ (`SecretsContracts`). Header names are kept
/// lowercased; query and body names ``normalized(_:)``, as Courier compares them.
public struct SecretMask: Sendable {
    /// Header fields whose values are secrets (lowercased; compared
    /// without case and separators, as Courier's `CredentialFields` does).
    public var headers: Set<String> { didSet { comparedHeaders = Set(headers.map(Self.normalized)) } }
    private var comparedHeaders: Set<String>
    /// Query parameters whose values are secrets.
    public var queryParameters: Set<String>
    /// JSON fields (at any depth) and form fields whose values are secrets.
    public var bodyFields: Set<String>
    /// What a secret value becomes.
    public var mask = "***"

    /// A mask over these names (headers compared without case; query and
    /// body names without case and without `_`, `-`, `.` and spaces).
    public init(headers: Set<String>, queryParameters: Set<String>, bodyFields: Set<String>) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.comparedHeaders = Set(headers.map(Self.normalized))
        self.queryParameters = Set(queryParameters.map(Self.normalized))
        self.bodyFields = Set(bodyFields.map(Self.normalized))
    }

    /// A name as names are compared: `refresh_token`, `refreshToken` and
    /// `Refresh-Token` are one name.
    public static func normalized(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { !"_-. ".unicodeScalars.contains($0) })
    }

    /// The same names as Courier's `Redaction.standard`.
    public static let standard = SecretMask(
        headers: [
            "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
            "api-key", "x-amz-security-token",
        ],
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

    /// Whether `name`'s values are secrets.
    func hidesHeader(_ name: String) -> Bool { comparedHeaders.contains(Self.normalized(name)) }

    /// Whether the query parameter `name`'s values are secrets.
    func hidesQuery(_ name: String) -> Bool { queryParameters.contains(Self.normalized(name)) }

    /// A header's value as it may be shown: masked for a secret field, a
    /// URL's secrets masked in `Location`, `Content-Location` and `Referer`.
    func header(_ name: String, _ value: String) -> String {
        switch name.lowercased() {
        case "location", "content-location", "referer": url(value)
        case let name where hidesHeader(name): mask
        default: value
        }
    }

    /// A request target (`/path?query`) with secret query values masked.
    func target(_ uri: String) -> String {
        guard let mark = uri.firstIndex(of: "?") else { return uri }
        let pairs = uri[uri.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false)
        return String(uri[...mark])
            + pairs.map { pair in
                guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
                let name = FormDecoding.decode(pair[..<equals])
                return hidesQuery(name) ? "\(pair[..<equals])=\(mask)" : String(pair)
            }.joined(separator: "&")
    }

    /// A URL (absolute or a reference, as a `Location` gives it) with its
    /// user information and secret query values masked.
    func url(_ text: String) -> String {
        var text = text
        if let slashes = text.firstRange(of: "//") {
            let end =
                text[slashes.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" }
                ?? text.endIndex
            if let at = text[slashes.upperBound..<end].lastIndex(of: "@") {
                text.replaceSubrange(slashes.upperBound..<at, with: mask)
            }
        }
        return target(text)
    }

    /// A body as text to show: a JSON document or a form with its secret
    /// fields masked; other text as it is.
    func body(_ text: String, contentType: String?) -> String {
        let type = contentType?.lowercased() ?? ""
        if type.contains("x-www-form-urlencoded") {
            return text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
                guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
                let name = Self.normalized(FormDecoding.decode(pair[..<equals]))
                let secret = bodyFields.contains(name) || queryParameters.contains(name)
                return secret ? "\(pair[..<equals])=\(mask)" : String(pair)
            }.joined(separator: "&")
        }
        if let json = try? JSONValue.parse(Array(text.utf8)) {
            let masked = self.json(json)
            return masked == json ? text : String(decoding: masked.jsonBytes, as: UTF8.self)
        }
        return text
    }

    /// `value` with the values of secret fields, at any depth, masked.
    func json(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var out: [String: JSONValue] = [:]
            for (key, item) in object {
                out[key] = bodyFields.contains(Self.normalized(key)) ? .string(mask) : json(item)
            }
            return .object(out)
        case .array(let items): return .array(items.map(json))
        default: return value
        }
    }
}
