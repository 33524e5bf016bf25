import HTTPTypes

/// The `Cache-Control` directives the cache acts on (RFC 9111 §5.2), read
/// from every `Cache-Control` field of a request or a response.
///
/// Directive names are case-insensitive; a value may be a token or a quoted
/// string; an unknown directive is ignored, and a known one with an
/// unusable value (`max-age=soon`) counts as absent — except that a
/// malformed `max-age` on a response makes it stale (§4.2.1: treat as
/// invalid freshness, never as "fresh forever").
struct CacheControl: Equatable {
    var noStore = false
    var noCache = false
    var isPrivate = false
    var isPublic = false
    var mustRevalidate = false
    /// `must-revalidate` for shared caches only (RFC 9111 §5.2.2.8).
    var proxyRevalidate = false
    var maxAge: Int?
    var sharedMaxAge: Int?
    var staleWhileRevalidate: Int?
    /// `stale-if-error` (RFC 5861 §4), on a response or a request.
    var staleIfError: Int?
    /// Request directives (RFC 9111 §5.2.1): `max-stale` (`Int.max` without
    /// an argument: any staleness), `min-fresh`, `only-if-cached`.
    var maxStale: Int?
    var minFresh: Int?
    var onlyIfCached = false
    /// `must-understand` (§5.2.2.3).
    var mustUnderstand = false
    /// A `max-age` or `s-maxage` was present but not a number.
    var hasInvalidAge = false

    /// Whether a stale response must not be used without revalidation
    /// (`must-revalidate`; `proxy-revalidate` in a shared cache).
    func forbidsStale(shared: Bool) -> Bool {
        mustRevalidate || (shared && proxyRevalidate)
    }

    /// A request's directives: without a `Cache-Control` field, `Pragma:
    /// no-cache` counts as `Cache-Control: no-cache` (RFC 9111 §5.4).
    init(request fields: HTTPFields) {
        self.init(fields)
        if fields[.cacheControl] == nil,
            fields.contains(where: { field in
                field.name.canonicalName == "pragma"
                    && Self.directives(field.value).contains { $0.name == "no-cache" }
            })
        {
            noCache = true
        }
    }

    init(_ fields: HTTPFields) {
        for value in fields[values: .cacheControl] {
            for directive in Self.directives(value) {
                apply(directive.name, directive.argument)
            }
        }
    }

    private mutating func apply(_ name: String, _ argument: String?) {
        switch name {
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "private": isPrivate = true
        case "public": isPublic = true
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "max-age": maxAge = seconds(argument)
        case "s-maxage": sharedMaxAge = seconds(argument)
        case "stale-while-revalidate": staleWhileRevalidate = seconds(argument, invalidAgeIfMalformed: false)
        case "stale-if-error": staleIfError = seconds(argument, invalidAgeIfMalformed: false)
        case "max-stale":
            maxStale = argument == nil ? Int.max : seconds(argument, invalidAgeIfMalformed: false)
        case "min-fresh": minFresh = seconds(argument, invalidAgeIfMalformed: false)
        case "only-if-cached": onlyIfCached = true
        case "must-understand": mustUnderstand = true
        default: break
        }
    }

    /// Delta-seconds (§1.2.2): digits only; values past 2^31 count as 2^31.
    /// A malformed `max-age` or `s-maxage` marks the freshness invalid; a
    /// malformed grace period (`stale-if-error=soon`) only counts as absent.
    private mutating func seconds(_ argument: String?, invalidAgeIfMalformed: Bool = true) -> Int? {
        guard let argument, !argument.isEmpty, argument.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            if invalidAgeIfMalformed { hasInvalidAge = true }
            return nil
        }
        return argument.count > 10 ? Int(Int32.max) : min(Int(argument) ?? Int(Int32.max), Int(Int32.max))
    }

    /// `name[=argument]` pairs, split on commas outside quoted strings.
    static func directives(_ value: String) -> [(name: String, argument: String?)] {
        var result: [(String, String?)] = []
        var current = ""
        var quoted = false
        var escaped = false
        func flush() {
            let text = current.trimmingBlanks()
            current = ""
            guard !text.isEmpty else { return }
            guard let equals = text.firstIndex(of: "=") else {
                result.append((text.lowercased(), nil))
                return
            }
            let name = text[..<equals].trimmingBlanks().lowercased()
            var argument = text[text.index(after: equals)...].trimmingBlanks()
            if argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") {
                argument = unquoted(argument.dropFirst().dropLast())
            }
            result.append((name, argument))
        }
        for character in value {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                flush()
                continue
            }
            current.append(character)
        }
        flush()
        return result
    }
}

/// A quoted string's content with its quoted pairs (`\x`) resolved.
private func unquoted(_ content: Substring) -> String {
    var result = ""
    var escaped = false
    for character in content {
        if !escaped, character == "\\" {
            escaped = true
            continue
        }
        escaped = false
        result.append(character)
    }
    return result
}

extension StringProtocol {
    /// Without spaces and tabs at either end.
    func trimmingBlanks() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
