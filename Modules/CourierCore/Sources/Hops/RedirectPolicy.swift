public import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a client follows redirects: Courier's pipeline decides, hop by hop,
/// not the HTTP library, so that the same rules hold over every transport
/// (``APIClient/Configuration/redirects``).
///
/// The rules:
/// - only `http` and `https` targets, and never from `https` down to `http`
///   unless ``allowsDowngrade``;
/// - only hosts that can be sent as they are: ASCII names and IP addresses,
///   no percent-escapes (a `Location` whose host decodes to a line break or a
///   space is refused, not sent);
/// - at most ``maxRedirects`` hops, and never the same URL twice (a loop);
/// - a 303, or a 301/302 answering a POST, becomes a GET without a body
///   and without the body's own fields (``contentFields``); 307 and 308 keep
///   the method, the body (which must be replayable) and its fields, to any
///   origin (RFC 9110 §15.4);
/// - on a hop to another origin (scheme, host or port), only the header
///   fields in ``crossOriginHeaders`` and the body's own fields are kept,
///   and never a credential field (``CredentialFields``, whatever
///   ``crossOriginHeaders`` says): `Authorization`, `Cookie`, API keys and
///   every header an interceptor added are dropped.
public struct RedirectPolicy: Sendable {
    /// Whether redirects are followed at all.
    public var follows: Bool
    /// The most hops followed.
    public var maxRedirects: Int
    /// Header fields kept on a cross-origin hop.
    public var crossOriginHeaders: Set<HTTPField.Name>
    /// Whether an `https` request may be redirected to `http`.
    public var allowsDowngrade: Bool

    /// Creates a policy; the defaults are ``follow``.
    /// - Parameters:
    ///   - follows: Whether redirects are followed at all; `false` returns the
    ///     3xx response as it is.
    ///   - maxRedirects: The most hops followed; one more fails with
    ///     ``TransportError/Code/redirectRefused``.
    ///   - crossOriginHeaders: The only header fields kept on a hop to another
    ///     origin (credentials never are).
    ///   - allowsDowngrade: Whether an https URL may redirect to http.
    public init(
        follows: Bool = true, maxRedirects: Int = 5,
        crossOriginHeaders: Set<HTTPField.Name> = RedirectPolicy.safeHeaders, allowsDowngrade: Bool = false
    ) {
        self.follows = follows
        self.maxRedirects = maxRedirects
        self.crossOriginHeaders = crossOriginHeaders
        self.allowsDowngrade = allowsDowngrade
    }

    /// Headers that carry no credentials: `Accept`, `Accept-Encoding`,
    /// `Accept-Language`, `User-Agent`, `Cache-Control`.
    public static let safeHeaders: Set<HTTPField.Name> = [
        .accept, .acceptEncoding, .acceptLanguage, .userAgent, .cacheControl,
    ]

    /// The fields that describe the body rather than the request (RFC 9110
    /// §15.4, §8; RFC 9530's digests): they travel with the body on every
    /// hop that keeps it, and go with it when a hop turns into a GET.
    public static let contentFields: Set<HTTPField.Name> = [
        .contentType, .contentEncoding, .contentLength, .contentLanguage, .contentLocation, .contentRange,
        .lastModified, HTTPField.Name("Content-Digest"), HTTPField.Name("Repr-Digest"),
        HTTPField.Name("Digest"), HTTPField.Name("Content-MD5"),
    ].compactMap { $0 }.reduce(into: []) { $0.insert($1) }

    /// Follow up to five hops with the rules above.
    public static let follow = RedirectPolicy()
    /// Return redirect responses as they are.
    public static let never = RedirectPolicy(follows: false)

    /// The request to send after `response`, or `nil` when it is not a
    /// redirect to follow.
    ///
    /// - Parameters:
    ///   - response: The response just received.
    ///   - request: The request that got it.
    ///   - visited: Every URL requested so far in this exchange, updated here.
    ///   - credentials: The fields a hop to another origin drops.
    /// - Returns: The next hop's request, or `nil` to deliver `response`.
    /// - Throws: ``TransportError`` with code ``TransportError/Code/redirectRefused``
    ///   for a loop, too many hops, a bad target or a body that cannot be resent.
    package func next(
        after response: RawResponse, for request: OutgoingRequest, visited: inout [String],
        credentials: CredentialFields = .standard
    ) throws(TransportError) -> OutgoingRequest? {
        let status = response.statusCode
        guard follows, Self.redirectStatuses.contains(status),
            let location = response.headerFields[.location], !location.isEmpty
        else { return nil }
        let current = Self.url(of: request.head)
        if visited.isEmpty { visited.append(current) }
        guard visited.count <= maxRedirects else {
            throw TransportError(.redirectRefused, "more than \(maxRedirects) redirects")
        }
        guard let base = URL(string: current),
            let target = URL(string: location, relativeTo: base)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), let host = target.host(percentEncoded: true),
            RequestHeadCheck.isHostName(host)
        else {
            // Secrets in the target (a token in the query, a password) stay out of the message.
            throw TransportError(
                .redirectRefused, "invalid redirect target \(Redaction.standard.url(location.prefix(200)))")
        }
        guard scheme == "http" || scheme == "https" else {
            throw TransportError(.redirectRefused, "redirect to a \(scheme) URL refused")
        }
        if request.head.scheme == "https", scheme == "http", !allowsDowngrade {
            throw TransportError(.redirectRefused, "redirect from https to http refused")
        }
        let absolute = target.absoluteString
        guard !visited.contains(absolute) else {
            throw TransportError(.redirectRefused, "redirect loop at \(Redaction.standard.url(absolute))")
        }
        visited.append(absolute)

        var head = request.head
        var body = request.body
        if status == 303 || ((status == 301 || status == 302) && head.method == .post) {
            if head.method != .head { head.method = .get }
            body = nil
            head.headerFields = HTTPFields(head.headerFields.filter { !Self.contentFields.contains($0.name) })
        } else if let body, !body.isReplayable {
            throw TransportError(
                .redirectRefused, "a \(status) redirect needs the body again, but it is a one-shot stream")
        }
        let port = target.port.map { ":\($0)" } ?? ""
        let authority = (host.contains(":") ? "[\(host)]" : host) + port
        let sameOrigin =
            head.scheme?.lowercased() == scheme && head.authority?.lowercased() == authority.lowercased()
        if !sameOrigin {
            head.headerFields = HTTPFields(
                head.headerFields.filter { field in
                    (crossOriginHeaders.contains(field.name) || Self.contentFields.contains(field.name))
                        && !credentials.contains(field.name)
                })
        }
        head.scheme = scheme
        head.authority = authority
        let query = target.query(percentEncoded: true).map { "?\($0)" } ?? ""
        let path = target.path(percentEncoded: true)
        head.path = (path.isEmpty ? "/" : path) + query
        return OutgoingRequest(head: head, body: body)
    }

    private static func url(of head: HTTPRequest) -> String {
        "\(head.scheme ?? "http")://\(head.authority ?? "")\(head.path ?? "/")"
    }
}

extension RedirectPolicy {
    /// Runs a whole exchange around one transport: `perform` sends one
    /// request without following redirects; this follows them by the
    /// policy's rules, deleting the body file of each redirect response that
    /// was downloaded. `APIClient` runs it for every attempt; call it
    /// yourself only when you use a transport without a client.
    ///
    /// With a cookie jar, every hop carries the jar's cookies for its own URL
    /// — joined into the request's own `Cookie` field with `"; "` (one field,
    /// RFC 6265 §5.4), which a cross-origin hop has dropped — and every hop's
    /// `Set-Cookie` is stored before the next hop is sent.
    ///
    /// A one-shot stream body is gathered first (at most
    /// ``TransportOptions/maxBodySize`` bytes), so that a 307/308 can send it
    /// again and transports that read bodies synchronously can read it.
    /// - Parameters:
    ///   - request: The first hop.
    ///   - options: The body limit for a gathered body.
    ///   - cookies: The jar consulted and fed on every hop; `nil` for none.
    ///   - credentials: The fields a hop to another origin drops.
    ///   - perform: Sends one hop.
    /// - Returns: The last hop's response.
    /// - Throws: Whatever `perform` throws, and ``TransportError`` with code
    ///   ``TransportError/Code/redirectRefused``.
    package func exchange(
        _ request: OutgoingRequest, options: TransportOptions, cookies: (any CookieStorage)? = nil,
        credentials: CredentialFields = .standard, perform: (OutgoingRequest) async throws -> RawResponse
    ) async throws -> RawResponse {
        try await exchange(
            request, options: options, cookies: cookies, credentials: credentials, onHop: nil,
            perform: perform)
    }

    /// ``exchange(_:options:cookies:credentials:perform:)``, telling `onHop` of each
    /// redirect followed: the status, the request redirected, the next one.
    package func exchange(
        _ request: OutgoingRequest, options: TransportOptions, cookies: (any CookieStorage)?,
        credentials: CredentialFields, onHop: ((Int, HTTPRequest, HTTPRequest) -> Void)?,
        perform: (OutgoingRequest) async throws -> RawResponse
    ) async throws -> RawResponse {
        // The common case in a small frame: a replayable body, no jar, and
        // an answer that is not a redirect to follow. Every request in
        // flight holds its task's frames, so their size is memory per
        // request (thousands may wait in a transport's queue).
        if cookies == nil, request.body?.isReplayable ?? true {
            let response = try await perform(request)
            guard follows, Self.redirectStatuses.contains(response.statusCode) else { return response }
            return try await following(
                response, to: request, options: options, cookies: nil, credentials: credentials, onHop: onHop,
                perform: perform)
        }
        return try await following(
            nil, to: request, options: options, cookies: cookies, credentials: credentials, onHop: onHop,
            perform: perform)
    }

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The rest of ``exchange(_:options:cookies:credentials:perform:)``: from `first`, the
    /// answer `request` already got (nil: not sent yet), hop by hop.
    @inline(never)
    private func following(
        _ first: RawResponse?, to request: OutgoingRequest, options: TransportOptions,
        cookies: (any CookieStorage)?, credentials: CredentialFields,
        onHop: ((Int, HTTPRequest, HTTPRequest) -> Void)?,
        perform: (OutgoingRequest) async throws -> RawResponse
    ) async throws -> RawResponse {
        var request = request
        // A body readable once is read whole (up to the largest body) only
        // when a 307 or 308 may have to send it again; a policy that does
        // not follow streams it as it is read.
        if follows, let body = request.body, !body.isReplayable {
            request.body = RequestBody(bytes: try await body.collect(upTo: options.maxBodySize))
        }
        var visited: [String] = []
        var received = first
        while true {
            let response: RawResponse
            if let received {
                response = received
            } else if let cookies {
                // The jar's cookies ride on the hop being sent, never on the
                // request the next hop is derived from.
                var sent = request
                if let field = cookies.cookieField(for: request.head) {
                    let own = sent.head.headerFields[values: .cookie].joined(separator: "; ")
                    sent.head.headerFields[.cookie] = own.isEmpty ? field : own + "; " + field
                }
                response = try await perform(sent)
                cookies.receive(response.head, for: sent.head)
            } else {
                response = try await perform(request)
            }
            received = nil
            guard
                let next = try next(
                    after: response, for: request, visited: &visited, credentials: credentials)
            else {
                guard !visited.isEmpty else { return response }
                var last = response
                last.redirectedTo = request.head
                return last
            }
            onHop?(response.statusCode, request.head, next.head)
            if case .file(let url) = response.body { try? FileManager.default.removeItem(at: url) }
            request = next
        }
    }
}
