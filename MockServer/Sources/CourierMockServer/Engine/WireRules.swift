import Foundation

/// What RFC 9110, 9112 and 6265 forbid a client to send in an HTTP/1.x
/// request, checked the way a strict origin server checks it, so that a
/// contract catches a wire mistake that a lenient mock would let through.
/// HTTP/2 requests are exempt: there a `Cookie` may come in crumbs and the
/// authority is a pseudo-header.
enum WireRules {
    /// The first rule `request` breaks, as the text of a 400 that names it;
    /// `nil` when it breaks none.
    static func violation(_ request: RecordedRequest) -> String? {
        guard request.version.hasPrefix("HTTP/1.") else { return nil }
        let cookies = request.headerValues("Cookie")
        if cookies.count > 1 {
            return "RFC 6265 §5.4: a user agent sends at most one Cookie header field; "
                + "this request has \(cookies.count) (join them with \"; \")"
        }
        let hosts = request.headerValues("Host")
        if request.version == "HTTP/1.1", hosts.isEmpty {
            return "RFC 9112 §3.2: an HTTP/1.1 request has a Host header field; this one has none"
        }
        if hosts.count > 1 {
            return "RFC 9112 §3.2: a request has one Host header field; this one has \(hosts.count)"
        }
        if let host = hosts.first, let authority = absoluteFormAuthority(request.uri),
            authority.lowercased() != host.lowercased()
        {
            return "RFC 9112 §3.2.2: the Host header field (\(host)) disagrees with the "
                + "request target's authority (\(authority))"
        }
        return nil
    }

    /// The authority of an absolute-form target (`http://host:port/path`).
    private static func absoluteFormAuthority(_ target: String) -> String? {
        guard let scheme = target.range(of: "://"), !target.hasPrefix("/") else { return nil }
        let rest = target[scheme.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        return String(rest[..<end])
    }
}
