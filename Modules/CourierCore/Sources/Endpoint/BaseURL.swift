#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A node's base URL taken apart once: what every request to the node starts from.
package struct BaseURL: Sendable, Hashable {
    /// `http` or `https`, lower-cased.
    package let scheme: String
    /// `host` or `host:port`; an IPv6 host in brackets.
    package let authority: String
    /// The percent-encoded path without a trailing slash; empty for the root.
    package let path: String
    /// The percent-encoded query the base URL carries, if any.
    package let query: String?

    /// Parses an http(s) URL with a host that can be sent as it is
    /// (``RequestHeadCheck/isHostName(_:)``); `nil` for anything else.
    package init?(_ string: String) {
        guard let components = URLComponents(string: string),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.percentEncodedHost, RequestHeadCheck.isHostName(host)
        else { return nil }
        var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = components.port { authority += ":\(port)" }
        var path = components.percentEncodedPath
        if path.hasSuffix("/") { path.removeLast() }
        let query = components.percentEncodedQuery
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query?.isEmpty == false ? query : nil
    }
}
