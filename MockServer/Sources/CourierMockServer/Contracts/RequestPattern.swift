/// What requests a stub answers.
public struct RequestPattern: Sendable, Hashable {
    /// How the URL is matched.
    public enum URLMatch: Sendable, Hashable {
        /// Path and query exactly (`url`).
        case exact(String)
        /// The path exactly, any query (`urlPath`).
        case path(String)
        /// A template such as `/users/{id}` (`urlPathTemplate`): each `{name}`
        /// matches one non-empty segment.
        case template(String)
        /// The path matches a regular expression (`urlPathPattern`).
        case pattern(String)
    }

    /// The method (`GET`…), or `nil` for any.
    public var method: String?
    /// The URL rule, or `nil` for any URL.
    public var url: URLMatch?
    /// Query parameters (decoded) by name.
    public var query: [String: StringMatcher]
    /// Header fields by case-insensitive name.
    public var headers: [String: StringMatcher]
    /// Body rules; all must hold.
    public var body: [BodyPattern]

    /// Creates a pattern.
    public init(
        method: String? = nil, url: URLMatch? = nil, query: [String: StringMatcher] = [:],
        headers: [String: StringMatcher] = [:], body: [BodyPattern] = []
    ) {
        self.method = method
        self.url = url
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// A rule about the request body.
public enum BodyPattern: Sendable, Hashable, CustomStringConvertible {
    /// The body is JSON equal to this value (key order and number spelling ignored).
    case equalToJson(JSONValue)
    /// The body is JSON that contains this value: objects by key, recursively.
    case containsJson(JSONValue)
    /// The body is `application/x-www-form-urlencoded` with these fields.
    case form([String: StringMatcher])
    /// The body text contains this string.
    case contains(String)
    /// The body text equals this string.
    case equalTo(String)

    /// A short description for near-miss reports.
    public var description: String {
        switch self {
        case .equalToJson(let json): "equalToJson \(json)"
        case .containsJson(let json): "containsJson \(json)"
        case .form(let fields): "form \(fields.keys.sorted())"
        case .contains(let text): "contains \"\(text)\""
        case .equalTo(let text): "equalTo \"\(text)\""
        }
    }
}
