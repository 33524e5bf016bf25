import HTTPTypes

/// What a cookie jar needs to know of a request's URL (RFC 6265 §5.1):
/// the canonical host, the path, and whether the channel is secure.
struct CookieOrigin: Equatable {
    /// Lowercase; an IPv6 address without its brackets.
    var host: String
    /// The path, without the query; `/` when empty.
    var path: String
    /// `https` (or `wss`): the only schemes that send and set `Secure` cookies.
    var isSecure: Bool

    init(host: String, path: String, isSecure: Bool) {
        self.host = host.lowercased()
        self.path = path.isEmpty ? "/" : path
        self.isSecure = isSecure
    }

    /// The origin of `request`, or `nil` when it has no host.
    init?(_ request: HTTPRequest) {
        guard let authority = request.authority, !authority.isEmpty else { return nil }
        var host = Substring(authority)
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        guard !host.isEmpty else { return nil }
        let full = request.path ?? "/"
        let path = full[..<(full.firstIndex { $0 == "?" || $0 == "#" } ?? full.endIndex)]
        let scheme = request.scheme?.lowercased()
        self.init(host: String(host), path: String(path), isSecure: scheme == "https" || scheme == "wss")
    }

    /// Whether the host is an IP address (a cookie for one never reaches another host).
    var hostIsIPAddress: Bool { Self.isIPAddress(host) }

    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in UInt8(part) != nil }
    }

    /// RFC 6265 §5.1.3: `host` is `domain`, or a name under it (never an IP address under it).
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix(domain), !isIPAddress(host) else { return false }
        let boundary = host.utf8.dropLast(domain.utf8.count).last
        return boundary == UInt8(ascii: ".")
    }

    /// RFC 6265 §5.1.4: whether a request for `requestPath` gets a cookie for `cookiePath`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// RFC 6265 §5.1.4: the path a cookie without `Path` applies to — the
    /// request path up to, not including, its last `/` (or `/`).
    var defaultPath: String {
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else {
            return "/"
        }
        return String(path[..<last])
    }
}
