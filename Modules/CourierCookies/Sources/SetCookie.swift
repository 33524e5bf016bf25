import Foundation

/// One `Set-Cookie` field, parsed by RFC 6265 §5.2 but not yet judged
/// against the URL it came from (``CookieTable`` does that, §5.3).
struct SetCookie: Equatable {
    var name: String
    var value: String
    /// `Expires`, when it held a date.
    var expires: Date?
    /// `Max-Age` in seconds, when it held a number (zero or less: expire now).
    var maxAge: Int64?
    /// `Domain`, lowercase and without its leading dot; `nil` when absent.
    var domain: String?
    /// `Path`, when it was present and began with `/`.
    var path: String?
    var secure = false
    var httpOnly = false
    var sameSite: SameSite?

    /// The longest name and value together, and the longest attribute value
    /// (RFC 6265bis §5.6): anything longer is ignored.
    static let maxNameAndValue = 4096
    static let maxAttributeValue = 1024

    /// The cookie `line` sets, or `nil` when it must be ignored: no `=`, an
    /// empty name, control characters, an over-long name and value, or a
    /// `Domain` that is not an ASCII host name.
    static func parse(_ line: String) -> SetCookie? {
        let text = Substring(line)
        let semicolon = text.firstIndex(of: ";")
        let pair = text[..<(semicolon ?? text.endIndex)]
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= maxNameAndValue,
            !hasControlCharacters(name), !hasControlCharacters(value)
        else { return nil }
        var cookie = SetCookie(name: String(name), value: String(value))
        guard let semicolon else { return cookie }
        for attribute in text[text.index(after: semicolon)...].split(separator: ";") {
            guard cookie.apply(attribute) else { return nil }
        }
        return cookie
    }

    /// Applies one `name[=value]` attribute; `false` when it makes the
    /// whole cookie unacceptable.
    private mutating func apply(_ attribute: Substring) -> Bool {
        let equals = attribute.firstIndex(of: "=")
        let name = Self.trimmed(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
        let value = equals.map { Self.trimmed(attribute[attribute.index(after: $0)...]) } ?? ""
        guard value.utf8.count <= Self.maxAttributeValue else { return true }
        switch name {
        case "expires":
            if let date = CookieDate.parse(value) { expires = date }
        case "max-age":
            if let seconds = Self.maxAge(value) { maxAge = seconds }
        case "domain":
            guard !value.isEmpty else { return true }
            let domain = (value.hasPrefix(".") ? value.dropFirst() : value).lowercased()
            guard Self.isHostName(domain) else { return false }
            self.domain = domain
        case "path":
            path = value.hasPrefix("/") ? String(value) : nil
        case "secure":
            secure = true
        case "httponly":
            httpOnly = true
        case "samesite":
            sameSite = SameSite.parse(value)
        default:
            break
        }
        return true
    }

    /// `Max-Age`: an optional `-` and digits; huge values saturate.
    private static func maxAge(_ text: Substring) -> Int64? {
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : text
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard let number = Int64(digits) else { return negative ? Int64.min : Int64.max }
        return negative ? -number : number
    }

    /// ASCII letters, digits, `-`, `_` and dots between non-empty labels.
    static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 253
            && text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
                !label.isEmpty
                    && label.utf8.allSatisfy { byte in
                        (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D
                            || byte == 0x5F
                    }
            }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }

    /// Control characters other than tab (RFC 6265bis §5.6): a cookie holding
    /// one is ignored, so a stored cookie can never split a request's head.
    private static func hasControlCharacters(_ text: Substring) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && $0.value != 0x09) || $0.value == 0x7F }
    }
}
