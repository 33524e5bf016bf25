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
        // One pass over the lines counts both fields: this runs on every request.
        var cookies = 0
        var hosts = 0
        var host: String?
        for line in request.headers {
            if HeaderName.equal(line.name, "Cookie") {
                cookies += 1
            } else if HeaderName.equal(line.name, "Host") {
                hosts += 1
                if host == nil { host = line.value }
            }
        }
        if cookies > 1 {
            return "RFC 6265 §5.4: a user agent sends at most one Cookie header field; "
                + "this request has \(cookies) (join them with \"; \")"
        }
        if request.version == "HTTP/1.1", hosts == 0 {
            return "RFC 9112 §3.2: an HTTP/1.1 request has a Host header field; this one has none"
        }
        if hosts > 1 {
            return "RFC 9112 §3.2: a request has one Host header field; this one has \(hosts)"
        }
        if let host, let authority = absoluteFormAuthority(request.uri),
            authority.lowercased() != host.lowercased()
        {
            return "RFC 9112 §3.2.2: the Host header field (\(host)) disagrees with the "
                + "request target's authority (\(authority))"
        }
        return nil
    }

    /// The authority of an absolute-form target (`http://host:port/path`).
    private static func absoluteFormAuthority(_ target: String) -> String? {
        // Origin form, the common case, is decided on its first byte.
        guard target.utf8.first != UInt8(ascii: "/"), let scheme = target.range(of: "://") else { return nil }
        let rest = target[scheme.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        return String(rest[..<end])
    }
}
