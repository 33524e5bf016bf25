import Foundation
import NIOConcurrencyHelpers

/// The `format` values an API uses, checked; and the schema's regular
/// expressions, compiled once.
enum SchemaFormats {
    /// Why `text` is not a `format` string; `nil` when it is one, or when
    /// the format is not one this checks (JSON Schema lets unknown formats pass).
    static func problem(string text: String, format: String) -> String? {
        let valid: Bool
        switch format {
        case "date-time": valid = isDateTime(text)
        case "date": valid = isDate(text)
        case "time": valid = isTime(text)
        case "email": valid = isEmail(text)
        case "uuid": valid = matches(text, uuid)
        case "uri": valid = isURI(text)
        case "ipv4": valid = isIPv4(text)
        case "ipv6": valid = isIPv6(text)
        case "byte": valid = Data(base64Encoded: text) != nil
        default: return nil
        }
        return valid ? nil : "\(SchemaValidator.short(.string(text))) is not a valid \(format)"
    }

    /// Why a number breaks an integer `format` (`int32`, `int64`); `nil` otherwise.
    static func problem(number: JSONValue, format: String) -> String? {
        let range: ClosedRange<Double>
        switch format {
        case "int32": range = Double(Int32.min)...Double(Int32.max)
        case "int64": range = -9_223_372_036_854_775_808.0...9_223_372_036_854_775_807.0
        default: return nil
        }
        let value: Double
        switch number {
        case .int(let integer): value = Double(integer)
        case .double(let double): value = double
        default: return nil
        }
        guard range.contains(value), value.rounded(.towardZero) == value else {
            return "\(SchemaValidator.short(number)) is not an \(format)"
        }
        return nil
    }

    // MARK: Regular expressions

    private static let cache = NIOLockedValueBox([String: NSRegularExpression?]())

    /// `pattern` compiled (ECMA-262 and ICU agree on what APIs write); `nil`
    /// when ICU cannot compile it, and then the keyword is not checked.
    static func regex(_ pattern: String) -> NSRegularExpression? {
        if let cached = cache.withLockedValue({ $0[pattern] }) { return cached }
        let compiled = try? NSRegularExpression(pattern: pattern)
        cache.withLockedValue { cache in
            if cache.count > 1_000 { cache.removeAll() }
            cache[pattern] = compiled
        }
        return compiled
    }

    /// Whether `regex` matches anywhere in `text` (JSON Schema's patterns are not anchored).
    static func search(_ regex: NSRegularExpression, in text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    static func matches(_ text: String, _ pattern: String) -> Bool {
        guard let regex = regex(pattern) else { return false }
        return search(regex, in: text)
    }

    // MARK: Formats

    // `\\z`, not `$`: ICU's `$` also matches before a final newline.
    private static let uuid =
        "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\z"

    /// RFC 3339 `full-date`, with the day within its month.
    static func isDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month)
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }

    /// RFC 3339 `full-time`: `hh:mm:ss[.frac](Z|±hh:mm)`.
    static func isTime(_ text: String) -> Bool {
        guard
            let regex = regex(
                "^([0-9]{2}):([0-9]{2}):([0-9]{2})(\\.[0-9]+)?([Zz]|([+-])([0-9]{2}):([0-9]{2}))\\z"),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else { return false }
        func group(_ index: Int) -> Int? {
            guard let range = Range(match.range(at: index), in: text) else { return nil }
            return Int(text[range])
        }
        guard let hour = group(1), let minute = group(2), let second = group(3), hour < 24, minute < 60,
            second < 61
        else { return false }
        if let offsetHour = group(7), let offsetMinute = group(8), offsetHour > 23 || offsetMinute > 59 {
            return false
        }
        if second == 60 {
            // A leap second is 23:59:60 in UTC only.
            var utcMinutes = hour * 60 + minute
            if let offsetHour = group(7), let offsetMinute = group(8),
                let signRange = Range(match.range(at: 6), in: text)
            {
                let offset = offsetHour * 60 + offsetMinute
                utcMinutes += text[signRange] == "+" ? -offset : offset
            }
            return (utcMinutes + 1440) % 1440 == 23 * 60 + 59
        }
        return true
    }

    /// RFC 3339 `date-time`.
    static func isDateTime(_ text: String) -> Bool {
        guard let separator = text.firstIndex(where: { $0 == "T" || $0 == "t" }) else { return false }
        return isDate(String(text[..<separator])) && isTime(String(text[text.index(after: separator)...]))
    }

    /// An email address (RFC 5321's mailbox, as APIs use it): a dot-atom or
    /// quoted local part, and a domain of letter-digit-hyphen labels or an
    /// address literal (`[192.0.2.1]`, `[IPv6:2001:db8::1]`).
    static func isEmail(_ text: String) -> Bool {
        guard let at = text.lastIndex(of: "@") else { return false }
        let local = text[..<at]
        let domain = text[text.index(after: at)...]
        guard !local.isEmpty, !domain.isEmpty else { return false }
        if local.hasPrefix("\""), local.hasSuffix("\""), local.count >= 2 {
            guard !local.dropFirst().dropLast().contains(where: { $0 == "\"" || $0 == "\n" }) else {
                return false
            }
        } else {
            let atom = Set(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~")
            guard !local.hasPrefix("."), !local.hasSuffix("."), !local.contains(".."),
                local.allSatisfy({ $0 == "." || atom.contains($0) })
            else { return false }
        }
        if domain.hasPrefix("["), domain.hasSuffix("]") {
            let literal = domain.dropFirst().dropLast()
            return literal.hasPrefix("IPv6:") ? isIPv6(String(literal.dropFirst(5))) : isIPv4(String(literal))
        }
        return domain.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// An absolute URI (RFC 3986 §3): a scheme, an authority whose port is
    /// digits and whose host brackets only an IP literal, and a rest of
    /// allowed ASCII characters with whole percent-escapes.
    static func isURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return false }
        var rest = text[text.index(after: colon)...]
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
            guard isAuthority(rest[..<end]) else { return false }
            rest = rest[end...]
        }
        return isURIText(rest, extra: "/?#:@")
    }

    private static func isAuthority(_ authority: Substring) -> Bool {
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            guard isURIText(authority[..<at], extra: ":") else { return false }
            hostPort = authority[authority.index(after: at)...]
        }
        var host = hostPort
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { return false }
            let literal = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            guard literal.hasPrefix("v") || literal.hasPrefix("V") || isIPv6(String(literal)) else {
                return false
            }
            let after = hostPort[hostPort.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return false }
            return after.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
        }
        if let portColon = hostPort.lastIndex(of: ":") {
            guard hostPort[hostPort.index(after: portColon)...].allSatisfy({ $0.isASCII && $0.isNumber })
            else {
                return false
            }
            host = hostPort[..<portColon]
        }
        return isURIText(host, extra: "")
    }

    /// Unreserved and sub-delimiter characters, `extra`, and whole percent-escapes.
    private static func isURIText(_ text: Substring, extra: String) -> Bool {
        let allowed = Set(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=" + extra)
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "%" {
                let first = text.index(after: index)
                guard first < text.endIndex, text[first].isHexDigit else { return false }
                let second = text.index(after: first)
                guard second < text.endIndex, text[second].isHexDigit else { return false }
                index = text.index(after: second)
                continue
            }
            guard allowed.contains(character) else { return false }
            index = text.index(after: index)
        }
        return true
    }

    /// Four decimal octets, 0–255, without leading zeros.
    static func isIPv4(_ text: String) -> Bool {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4
            && octets.allSatisfy { octet in
                !octet.isEmpty && octet.count <= 3 && octet.allSatisfy { $0.isASCII && $0.isNumber }
                    && (octet == "0" || !octet.hasPrefix("0")) && (Int(octet) ?? 256) <= 255
            }
    }

    /// What `inet_pton` takes as an IPv6 address (no zone, no brackets).
    static func isIPv6(_ text: String) -> Bool {
        guard text.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else {
            return false
        }
        var address = [UInt8](repeating: 0, count: 16)  // an in6_addr's bytes
        return inet_pton(AF_INET6, text, &address) == 1
    }
}
