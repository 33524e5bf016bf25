import HTTPTypes

extension HTTPFields {
    /// Calls `body` with each field as a transport writes it in an HTTP/1.1
    /// message: in order, except `Cookie`. swift-http-types keeps a `Cookie`
    /// value as separate crumbs (RFC 9113 §8.2.3 allows that in HTTP/2), and
    /// a transport that wrote them one by one sent several `Cookie` lines —
    /// or, through FoundationNetworking, one line joined with commas. A user
    /// agent sends one `Cookie` field (RFC 6265 §5.4), crumbs joined with
    /// `"; "` (RFC 9113 §8.2.3): it comes last, once.
    /// - Parameter body: Takes a field's name, as written, and its value.
    /// - Throws: What `body` throws; the fields after it are not visited.
    package func forEachOnTheWire<Failure: Error>(
        _ body: (_ name: String, _ value: String) throws(Failure) -> Void
    ) throws(Failure) {
        var cookie: String?
        for field in self {
            guard field.name == .cookie else {
                try body(field.name.rawName, field.value)
                continue
            }
            cookie = cookie.map { $0 + "; " + field.value } ?? field.value
        }
        if let cookie { try body(HTTPField.Name.cookie.rawName, cookie) }
    }
}
