/// A path relative to a node's base URL, where interpolated values are
/// escaped as single path segments.
///
/// Write paths as string literals with interpolation: literal text is kept as
/// written, every interpolated value is percent-encoded, so a value can never
/// add a segment, a query or a fragment:
///
/// ```swift
/// let path: RoutePath = "users/\(name)/repos"   // name "a/b?c" → users/a%2Fb%3Fc/repos
/// ```
///
/// A value made only of dots (`.` or `..`) is escaped as `%2E`, so it cannot
/// climb out of the path.
///
/// The ``template`` — what logs and metrics show — names each value by its
/// type (`orders/{Int}`), or by the name you give it (`orders/{id}`):
///
/// ```swift
/// let path: RoutePath = "orders/\(id, name: "id")"   // template: orders/{id}
/// ```
public struct RoutePath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The path as it is sent, already escaped.
    public let escaped: String
    /// The path with placeholders for interpolated values, e.g.
    /// `users/{String}/repos` or `users/{login}/repos`: a stable name for logs
    /// and metrics that does not leak ids.
    public let template: String

    /// Builds the path from a literal and escaped values.
    public struct StringInterpolation: StringInterpolationProtocol {
        var escaped = ""
        var template = ""

        /// Reserves space.
        public init(literalCapacity: Int, interpolationCount: Int) {
            escaped.reserveCapacity(literalCapacity + interpolationCount * 8)
        }

        /// Literal text: kept as written, but for non-ASCII characters,
        /// which are percent-encoded as UTF-8.
        public mutating func appendLiteral(_ literal: String) {
            escaped += RoutePath.escapeNonASCII(literal)
            template += literal
        }

        /// A value: escaped as one path segment; the template shows its type.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            escaped += RoutePath.escapeSegment(value.description)
            template += "{\(type(of: value))}"
        }

        /// A value with a name for the template: escaped as one path segment;
        /// the template shows `{name}`.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible, name: String) {
            escaped += RoutePath.escapeSegment(value.description)
            template += "{\(name)}"
        }
    }

    /// A path without interpolation, kept as written but for non-ASCII
    /// characters, which are percent-encoded as UTF-8 (`"café"` is sent as
    /// `caf%C3%A9`).
    public init(stringLiteral value: String) {
        self.escaped = Self.escapeNonASCII(value)
        self.template = value
    }

    /// A path built by interpolation.
    public init(stringInterpolation: StringInterpolation) {
        self.escaped = stringInterpolation.escaped
        self.template = stringInterpolation.template
    }

    /// A path given as already-escaped text; nothing is changed (a non-ASCII
    /// character in it fails the call when it is built).
    public init(escaped: String) {
        self.escaped = escaped
        self.template = escaped
    }

    /// A path given as already-escaped text, with the name logs and metrics
    /// show for it (a generated client's operation ID, say), so that ids in
    /// the path never become labels.
    public init(escaped: String, template: String) {
        self.escaped = escaped
        self.template = template
    }

    /// The escaped path.
    public var description: String { escaped }

    /// Literal text with every byte outside ASCII percent-encoded.
    static func escapeNonASCII(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                out.unicodeScalars.append(scalar)
            } else {
                out += PercentEncoding.escape(String(scalar))
            }
        }
        return out
    }

    /// Escapes one path segment: everything but unreserved characters; a
    /// dots-only value has its dots escaped too.
    public static func escapeSegment(_ value: String) -> String {
        if !value.isEmpty, value.allSatisfy({ $0 == "." }) {
            return String(repeating: "%2E", count: value.count)
        }
        return PercentEncoding.escape(value)
    }
}
