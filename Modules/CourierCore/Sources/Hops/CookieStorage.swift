public import HTTPTypes

/// Where a client keeps cookies between exchanges: a cookie jar
/// (`CourierCookies`' `CookieJar` is the one there is).
///
/// The pipeline consults it on **every hop** of every attempt, redirects
/// included (as ``RedirectPolicy`` follows them): before
/// sending, it asks for the `Cookie` field of that hop's URL; after the
/// response, it hands over the response so that its `Set-Cookie` fields are
/// stored before the next hop is sent. Transports never see the jar: that is
/// why cookies behave the same over every transport, and why a cookie set by
/// a redirect reaches its target.
///
/// Both methods are called from the call's task for each hop; they must
/// be quick and must not block (keep the cookies in memory, write files
/// elsewhere).
public protocol CookieStorage: Sendable {
    /// The value of the `Cookie` field to send with `request`, or `nil` when
    /// no stored cookie applies to its URL.
    func cookieField(for request: HTTPRequest) -> String?

    /// Stores the cookies `response` sets (its `Set-Cookie` fields), as
    /// received for `request`.
    func receive(_ response: HTTPResponse, for request: HTTPRequest)
}
