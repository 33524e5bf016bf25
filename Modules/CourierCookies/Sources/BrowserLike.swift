public import CourierCore

extension APIClient.Configuration {
    /// A configuration that keeps a session the way a browser does: a
    /// ``CookieJar`` (every `Set-Cookie` stored, every request and redirect
    /// hop carrying what applies) and redirects followed by the transport's
    /// ``/CourierCore/RedirectPolicy``. For a client that logs in to a site and then
    /// calls it as that user; a server calling APIs for many users wants
    /// the default (no jar), or one jar per user.
    ///
    /// ```swift
    /// let jar = CookieJar()
    /// let client = APIClient(.browserLike(transport: CurlTransport.shared, decoder: decoder, cookies: jar))
    /// ```
    public static func browserLike(
        transport: any Transport, decoder: (any ResponseDecoder)? = nil, cookies: CookieJar = CookieJar()
    ) -> APIClient.Configuration {
        APIClient.Configuration(transport: transport, decoder: decoder, cookies: cookies)
    }
}
