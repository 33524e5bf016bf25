import CourierCore

/// A proxy URL or no-proxy entry that cannot be used, said when it is read —
/// never by connecting directly instead.
public struct InvalidProxyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value as given, any password masked.
    public var value: String
    /// What is wrong with it.
    public var reason: String

    /// Creates the error; `value` is masked here.
    init(_ value: some StringProtocol, _ reason: String) {
        self.value = Redaction.standard.url(value)
        self.reason = reason
    }

    /// `invalid proxy "value": reason`.
    public var description: String { "invalid proxy \"\(value)\": \(reason)" }
}

extension Proxy {
    /// Reads a proxy URL as curl and the environment write it:
    /// `[scheme://][user[:password]@]host[:port][/]`.
    ///
    /// The scheme is `http` (also when there is none), `https`, `socks5` or
    /// `socks5h` (both ``Kind/socks5``, resolved by the proxy). User and
    /// password are percent-decoded and become Basic ``Credentials``. An
    /// IPv6 host is written in brackets.
    /// - Throws: ``InvalidProxyError`` for another scheme (SOCKS4 among
    ///   them), a missing host, a bad port, or a path or query.
    public init(url: String) throws(InvalidProxyError) {
        var rest = Substring(url.trimmingASCIISpaces())
        var kind = Kind.http
        if let separator = rest.firstRange(of: "://") {
            let scheme = rest[..<separator.lowerBound].lowercased()
            switch scheme {
            case "http": kind = .http
            case "https": kind = .https
            case "socks5", "socks5h": kind = .socks5
            default:
                throw InvalidProxyError(
                    url, "the scheme \"\(scheme)\" is not one of http, https, socks5, socks5h")
            }
            rest = rest[separator.upperBound...]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else {
            throw InvalidProxyError(url, "a proxy URL has no path, query or fragment")
        }
        var credentials: Credentials?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let colon = userInfo.firstIndex(of: ":")
            let user = String(userInfo[..<(colon ?? userInfo.endIndex)])
            let password = colon.map { String(userInfo[userInfo.index(after: $0)...]) } ?? ""
            guard let decodedUser = user.percentDecoded(), let decodedPassword = password.percentDecoded()
            else {
                throw InvalidProxyError(url, "the user information is not valid percent-encoding")
            }
            credentials = Credentials(user: decodedUser, password: decodedPassword)
        }
        let (host, port) = try Self.hostAndPort(rest, in: url)
        self.init(kind, host: host, port: port, credentials: credentials)
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`.
    private static func hostAndPort(_ authority: Substring, in url: String) throws(InvalidProxyError)
        -> (String, Int?)
    {
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw InvalidProxyError(url, "an IPv6 address misses its closing bracket")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw InvalidProxyError(url, "unexpected text after the address")
                }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw InvalidProxyError(url, "it names no host") }
        guard let portText else { return (String(host), nil) }
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw InvalidProxyError(url, "the port \"\(portText)\" is not a number from 1 to 65535")
        }
        return (String(host), port)
    }
}

extension StringProtocol where SubSequence == Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingASCIISpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let start = firstIndex { !isSpace($0) } ?? endIndex
        let end = lastIndex { !isSpace($0) }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
