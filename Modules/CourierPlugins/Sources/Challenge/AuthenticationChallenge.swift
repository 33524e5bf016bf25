public import HTTPTypes

/// One challenge of a `WWW-Authenticate` or `Proxy-Authenticate` field: a
/// scheme, and either parameters or a `token68` (RFC 9110 §11.3, §11.6.1).
///
/// A field may hold several challenges, and a response may repeat the
/// field; ``challenges(in:field:)`` reads them all, in order. The grammar
/// separates both challenges and their parameters with commas, so a
/// challenge ends where a token is followed by something other than `=`:
///
/// ```swift
/// let offered = AuthenticationChallenge.challenges(in: response.headerFields)
/// // Digest realm="api", algorithm=SHA-256, nonce="…", Basic realm="api"
/// offered.map(\.scheme)                    // ["Digest", "Basic"]
/// offered[0].parameter("algorithm")        // "SHA-256"
/// ```
///
/// Malformed input loses only what is malformed: a parameter without a
/// value, an unterminated quoted string or a stray character ends the
/// challenge it is in, and reading goes on at the next comma.
public struct AuthenticationChallenge: Sendable, Hashable {
    /// The scheme as the server wrote it (`Digest`, `Basic`); schemes are
    /// compared without case (``isScheme(_:)``).
    public var scheme: String
    /// The parameters, names lowercased, values with quotes and escapes
    /// removed; a name given twice keeps its first value (RFC 9110 allows each once).
    public var parameters: [String: String]
    /// The `token68` form (`Negotiate`'s blob), when the challenge has one
    /// instead of parameters.
    public var token68: String?

    /// A challenge, as a test or a server writes one.
    /// - Parameters:
    ///   - scheme: The scheme's name.
    ///   - parameters: The parameters, by name (matched without case).
    ///   - token68: The `token68` form instead of parameters.
    public init(scheme: String, parameters: [String: String] = [:], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = Dictionary(parameters.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        self.token68 = token68
    }

    /// Whether the scheme is `name`, compared without case.
    public func isScheme(_ name: String) -> Bool {
        scheme.lowercased() == name.lowercased()
    }

    /// A parameter's value, the name matched without case.
    public func parameter(_ name: String) -> String? {
        parameters[name.lowercased()]
    }

    /// Every challenge of every `field` in `fields`, in order.
    /// - Parameters:
    ///   - fields: A response's header fields.
    ///   - field: `WWW-Authenticate` (the default) or `Proxy-Authenticate`.
    /// - Returns: The challenges; empty when there are none.
    public static func challenges(
        in fields: HTTPFields, field: HTTPField.Name = .wwwAuthenticate
    ) -> [AuthenticationChallenge] {
        fields[values: field].flatMap(parse)
    }

    /// The challenges in one field value.
    /// - Parameter value: A `WWW-Authenticate` value.
    /// - Returns: Its challenges, in order.
    public static func parse(_ value: String) -> [AuthenticationChallenge] {
        var scanner = ChallengeScanner(Array(value.utf8))
        var challenges: [AuthenticationChallenge] = []
        while let challenge = scanner.nextChallenge() { challenges.append(challenge) }
        return challenges
    }
}

/// Reads challenges from a field value's bytes, by RFC 9110's grammar:
/// `challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`,
/// `auth-param = token BWS "=" BWS ( token / quoted-string )`.
private struct ChallengeScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next challenge, or `nil` at the end.
    mutating func nextChallenge() -> AuthenticationChallenge? {
        while true {
            skip { $0 == UInt8(ascii: ",") || Self.isSpace($0) }
            guard index < bytes.count else { return nil }
            guard let scheme = token() else {
                skipPastComma()
                continue
            }
            var challenge = AuthenticationChallenge(scheme: scheme)
            skip(Self.isSpace)
            if let blob = token68() {
                challenge.token68 = blob
            } else {
                parameters(into: &challenge)
            }
            return challenge
        }
    }

    /// `token68` followed by the end of the challenge; otherwise nothing is consumed.
    private mutating func token68() -> String? {
        let start = index
        var end = index
        while end < bytes.count, Self.isToken68(bytes[end]) { end += 1 }
        guard end > start else { return nil }
        while end < bytes.count, bytes[end] == UInt8(ascii: "=") { end += 1 }
        var after = end
        while after < bytes.count, Self.isSpace(bytes[after]) { after += 1 }
        guard after == bytes.count || bytes[after] == UInt8(ascii: ",") else { return nil }
        index = after
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// `#auth-param`, up to the token that starts the next challenge.
    private mutating func parameters(into challenge: inout AuthenticationChallenge) {
        while true {
            skip { $0 == UInt8(ascii: ",") || Self.isSpace($0) }
            let start = index
            guard let name = token() else {
                if index < bytes.count { skipPastComma() }
                return
            }
            skip(Self.isSpace)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                index = start  // a scheme: the next challenge begins here
                return
            }
            index += 1
            skip(Self.isSpace)
            guard let value = quotedString() ?? token() else {
                skipPastComma()
                return
            }
            let key = name.lowercased()
            if challenge.parameters[key] == nil { challenge.parameters[key] = value }
            skip(Self.isSpace)
            guard index < bytes.count else { return }
            guard bytes[index] == UInt8(ascii: ",") else {
                skipPastComma()
                return
            }
        }
    }

    private mutating func token() -> String? {
        let start = index
        while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// A quoted string without its quotes and escapes; `nil` (nothing
    /// consumed) unless one starts here, `nil` (the rest consumed) when it
    /// is not terminated.
    private mutating func quotedString() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\") where index < bytes.count:
                value.append(bytes[index])
                index += 1
            default: value.append(byte)
            }
        }
        return nil
    }

    private mutating func skip(_ predicate: (UInt8) -> Bool) {
        while index < bytes.count, predicate(bytes[index]) { index += 1 }
    }

    /// Past the next comma outside a quoted string (or to the end).
    private mutating func skipPastComma() {
        var quoted = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if quoted, byte == UInt8(ascii: "\\") {
                index += 1
            } else if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if !quoted, byte == UInt8(ascii: ",") {
                return
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// `tchar` (RFC 9110 §5.6.2).
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// The characters of `token68` before its `=` padding (RFC 9110 §11.2).
    private static func isToken68(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("-._~+/".utf8).contains(byte)
        }
    }
}
