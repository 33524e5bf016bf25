/// Redirects for a streamed response: each hop's head is read, a redirect's
/// (small) body collected, and only the final answer's body streamed.
extension RedirectPolicy {
    /// The largest redirect body read before the next hop; a redirect body
    /// is a line of text, a larger one is not read on.
    static let largestRedirectBody = 64 * 1024

    /// A streamed exchange around one ``StreamingTransport``: refuses a
    /// cancelled call, follows redirects
    /// (``streamExchange(_:options:cookies:open:)``) and bounds each hop's
    /// wait for its head by `options.timeout`. `open` gets the options for
    /// the body, without that timeout (the caller keeps the body's
    /// deadlines). `APIClient` runs it for every streaming attempt.
    func stream(
        _ request: OutgoingRequest, options: TransportOptions, cookies: (any CookieStorage)? = nil,
        credentials: CredentialFields = .standard,
        open: @escaping @Sendable (OutgoingRequest, TransportOptions) async throws -> StreamingResponse
    ) async throws -> StreamingResponse {
        try options.checkCancellation()
        var body = options
        body.timeout = nil
        let bodyOptions = body
        return try await streamExchange(request, options: options, cookies: cookies, credentials: credentials)
        {
            hop in
            try await StreamingResponse.head(within: options.timeout) { try await open(hop, bodyOptions) }
        }
    }

    /// Follows redirects like ``exchange(_:options:cookies:credentials:perform:)``,
    /// opening every hop with `open`: a hop answered with a redirect to
    /// follow has its body read whole and dropped; the final answer comes
    /// back with its body unread.
    /// - Parameters:
    ///   - request: The first hop.
    ///   - options: The body limit for re-sent bodies.
    ///   - cookies: The jar consulted and fed on every hop; `nil` for none.
    ///   - credentials: The fields a hop to another origin drops.
    ///   - open: Sends one hop and returns once its head is in.
    /// - Returns: The last hop's response, its body still open.
    /// - Throws: What `open` throws, and ``TransportError`` with code
    ///   ``TransportError/Code/redirectRefused``.
    func streamExchange(
        _ request: OutgoingRequest, options: TransportOptions, cookies: (any CookieStorage)? = nil,
        credentials: CredentialFields = .standard, open: (OutgoingRequest) async throws -> StreamingResponse
    ) async throws -> StreamingResponse {
        let final = Locked<StreamingResponse?>(nil)
        let answer: RawResponse
        do {
            answer = try await exchange(request, options: options, cookies: cookies, credentials: credentials)
            {
                hop in
                let response = try await open(hop)
                if follows, RedirectPolicy.redirectStatuses.contains(response.statusCode) {
                    let bytes = try await response.body.collect(upTo: Self.largestRedirectBody)
                    return RawResponse(head: response.head, body: .bytes(bytes))
                }
                final.withLock { $0?.body.cancel() }  // (a hop the policy went past)
                final.withLock { $0 = response }
                return RawResponse(head: response.head)
            }
        } catch {
            final.withLock { $0 }?.body.cancel()
            throw error
        }
        // A redirect the policy does not follow is the answer, its body read already.
        guard var response = final.withLock({ $0 }), answer.body.bytes?.isEmpty ?? true else {
            var refused = StreamingResponse(
                head: answer.head, body: ResponseBodyStream(bytes: answer.body.bytes ?? []))
            refused.redirectedTo = answer.redirectedTo
            return refused
        }
        response.redirectedTo = answer.redirectedTo
        return response
    }
}
