import HTTPTypes

extension APIClient {
    /// Sends the endpoint and returns as soon as the response head is in
    /// and valid; the body follows as it arrives (``StreamedBody``): for
    /// server-sent events, NDJSON exports, a language model's tokens, a
    /// long poll.
    ///
    /// The call goes through the pipeline like ``send(_:plugins:progress:)``
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
    /// when the body ends, with the counts in ``RawResponse/stream``.
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
    /// - Throws: ``CourierError`` before the body: what ``send(_:plugins:progress:)`` would throw.
    public func stream<Response>(
        _ endpoint: Endpoint<Response>, timeouts: StreamTimeouts = .init(), plugins: [any Plugin] = []
    ) async throws(CourierError) -> StreamingReply {
        try await openStream(endpoint, timeouts: timeouts, plugins: plugins, reportsEnd: true).reply
    }

    /// A stream's connection: the reply, and what reporting its end needs.
    package struct StreamConnection: Sendable {
        package let reply: StreamingReply
        /// The plugins and context of the call, for `process` at the end.
        package let plugins: [any Plugin]
        package let context: CallContext
    }

    /// Runs a streaming call's pass (`CallStage.endpointMapping` … `.validation`) and wraps the body it opened.
    /// - Parameters:
    ///   - endpoint: The API to call.
    ///   - timeouts: The head and idle timeouts.
    ///   - plugins: Plugins for this call only.
    ///   - reportsEnd: Whether plugins' `process` runs when this body ends
    ///     (an event stream reports once for all its connections).
    /// - Returns: The open connection: head and body.
    /// - Throws: ``CourierError`` when the call fails before the head is in.
    package func openStream<Response>(
        _ endpoint: Endpoint<Response>, timeouts: StreamTimeouts, plugins: [any Plugin], reportsEnd: Bool
    ) async throws(CourierError) -> StreamConnection {
        let slot = StreamSlot()
        let (call, running) = services.start(endpoint, plugins, nil, role: .lastDelivery, stream: slot)
        var state = call
        let pipeline = CallPipeline()
        let outcome: CallPipeline.Outcome
        if endpoint.spec.destination != nil {
            outcome = .failure(
                CourierError(
                    .invalidRequest, stage: .build, message: "a download destination cannot be streamed"))
        } else {
            outcome = await pipeline.pass(&state)  // .endpointMapping … .validation
        }
        // A stream counts as running in its concurrency group until its body
        // ends; a call that failed before the head leaves the group now.
        let ending = state  // what the stream's end is reported with, and its parts left
        let settings = state.settings
        let context = state.context
        let report: @Sendable (Result<RawResponse, CourierError>) async -> Void = { ended in
            guard reportsEnd else { return }
            // The stream is delivered already: what the plugins return changes nothing.
            var result = ended
            await PluginProcessing.run(settings.plugins, &result, context)
        }
        switch outcome {
        case .failure(let error):
            ending.endCall()
            slot.release(keeping: nil)
            let failure = pipeline.completed(error, state)
            services.finishRunning(running)
            await report(.failure(failure))
            throw failure
        case .success(let response):
            // An interceptor's own answer (or a JSON one read whole) is the body as it is.
            let body: ResponseBodyStream
            if let bytes = response.body.bytes, !bytes.isEmpty {
                body = ResponseBodyStream(bytes: bytes)
            } else {
                body = response.openBody ?? ResponseBodyStream(bytes: [])
            }
            slot.release(keeping: body)
            let head = response.head
            let metrics = response.metrics
            let request = state.request?.head
            let session = StreamSession(
                body: body, request: request, attempt: state.budget.attempts, clock: settings.clock,
                timeouts: timeouts, cancellation: state.cancellation
            ) { [services] summary, error in
                ending.endCall()
                services.finishRunning(running)
                ending.emit(.streamEnded(summary))
                var ended = RawResponse(head: head, metrics: metrics)
                ended.metrics.bytesReceived = summary.bytes
                ended.stream = summary
                guard var error else { return await report(.success(ended)) }
                error.response = error.response ?? ended
                await report(.failure(error))
            }
            let reply = StreamingReply(
                head: head, body: StreamedBody(session: session), attempts: state.budget.attempts)
            return StreamConnection(reply: reply, plugins: settings.plugins, context: context)
        }
    }
}

extension APIClient {
    /// The retry policy of `endpoint` under this client: the endpoint's, or
    /// the client's; for a stream that retries its connections itself.
    package func retryPolicy<Response>(of endpoint: Endpoint<Response>) -> RetryPolicy {
        CallSettings.retryPolicy(endpoint.spec, configuration)
    }
}
