public import CourierCore

extension APIClient {
    /// Sends the endpoint and returns as soon as the response head is in
    /// and valid; the body follows as it arrives (``StreamedBody``): for
    /// server-sent events, NDJSON exports, a language model's tokens, a
    /// long poll.
    ///
    /// The call goes through the pipeline like `send(_:plugins:progress:)`
    /// up to the head: endpoint mapping, parameter and per-call
    /// interceptors (authentication, token refresh), every attempt's
    /// interceptors and plugins, the retry policy for failures before the
    /// head (a refused connection, a 503), and validation of the status and
    /// content type. An answer validation refuses has its body read whole
    /// (up to `maxBodySize`) and is thrown as the usual typed error, with
    /// the envelope's business code when it carries one; so is a JSON
    /// envelope with a failing code sent where the stream was expected.
    /// The response cache and coalescing take no part; a concurrency group
    /// counts the call as running until its body ends (read to the end,
    /// failed, or cancelled), so a `wait` policy queues the next call behind
    /// the whole stream. Plugins' `process` runs once,
    /// when the body ends, with the counts in ``/CourierCore/RawResponse/stream``.
    ///
    /// ```swift
    /// let reply = try await client.stream(.orderEvents(id: 42))
    /// for try await event in reply.body.serverSentEvents {
    ///     print(event.type, event.data)
    /// }
    /// ```
    /// - Parameters:
    ///   - endpoint: The API to call; its response type is not used.
    ///   - timeouts: The body's idle and total deadlines.
    ///   - plugins: Plugins for this call only, after the client's and the endpoint's.
    /// - Returns: The head, and the body to read.
    /// - Throws: ``/CourierCore/CourierError`` before the body: what
    ///   `send(_:plugins:progress:)` would throw.
    public func stream<Response>(
        _ endpoint: Endpoint<Response>, timeouts: StreamTimeouts = .init(), plugins: [any Plugin] = []
    ) async throws(CourierError) -> StreamingReply {
        try await openStream(endpoint, timeouts: timeouts, plugins: plugins, reportsEnd: true).reply
    }

    /// A stream's connection: the reply, and what reporting its end needs.
    struct StreamConnection: Sendable {
        let reply: StreamingReply
        /// The plugins and context of the call, for `process` at the end.
        let plugins: [any Plugin]
        let context: CallContext
    }

    /// Opens a streaming call (CourierCore's pass up to a valid head) and
    /// wraps its body with the deadlines of `timeouts`.
    /// - Parameters:
    ///   - endpoint: The API to call.
    ///   - timeouts: The body's idle and total deadlines.
    ///   - plugins: Plugins for this call only.
    ///   - reportsEnd: Whether plugins' `process` runs when this body ends
    ///     (an event stream reports once for all its connections).
    /// - Returns: The open connection: head and body.
    /// - Throws: ``/CourierCore/CourierError`` when the call fails before the head is in.
    func openStream<Response>(
        _ endpoint: Endpoint<Response>, timeouts: StreamTimeouts, plugins: [any Plugin], reportsEnd: Bool
    ) async throws(CourierError) -> StreamConnection {
        let opened = try await openStream(endpoint, plugins: plugins, reportsEnd: reportsEnd)
        let session = StreamSession(
            body: opened.body, request: opened.request, attempt: opened.attempts, clock: opened.clock,
            timeouts: timeouts, cancellation: opened.cancellation, onEnd: opened.end)
        let reply = StreamingReply(
            head: opened.head, body: StreamedBody(session: session), attempts: opened.attempts)
        return StreamConnection(reply: reply, plugins: opened.plugins, context: opened.context)
    }
}
