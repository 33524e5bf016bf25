package import HTTPTypes

extension APIClient {
    /// A streaming call whose head is in and valid, with what reading its
    /// body and reporting its end need: CourierStreamFormats wraps it in
    /// the `StreamedBody` an app reads (`APIClient.stream`).
    package struct OpenedStream: Sendable {
        /// The validated head.
        package let head: HTTPResponse
        /// The body as the transport delivers it.
        package let body: ResponseBodyStream
        /// The request the head answers, for the body's errors.
        package let request: HTTPRequest?
        /// Requests sent before this head (retries included).
        package let attempts: Int
        /// The clock of the body's deadlines.
        package let clock: any CourierClock
        /// The call's cancellation from outside its task.
        package let cancellation: CallCancellation
        /// The plugins and context of the call, for `process` at the end.
        package let plugins: [any Plugin]
        package let context: CallContext
        /// Reports the body's end, exactly once: the call leaves what it
        /// joined, monitors see `.streamEnded`, plugins' `process` runs
        /// (when the stream reports its own end).
        package let end: @Sendable (StreamSummary, CourierError?) async -> Void
    }

    /// Runs a streaming call's pass (`CallStage.endpointMapping` … `.validation`) and wraps the body it opened.
    /// - Parameters:
    ///   - endpoint: The API to call.
    ///   - plugins: Plugins for this call only.
    ///   - reportsEnd: Whether plugins' `process` runs when this body ends
    ///     (an event stream reports once for all its connections).
    ///   - hop: How each hop is sent, when not through the transport's
    ///     `stream` (CourierWebSocket's opening handshake, which keeps the
    ///     connection a `101` opens); `nil`: the transport's.
    /// - Returns: The open stream: head and body.
    /// - Throws: ``CourierError`` when the call fails before the head is in.
    package func openStream<Response>(
        _ endpoint: Endpoint<Response>, plugins: [any Plugin], reportsEnd: Bool, hop: StreamHop? = nil
    ) async throws(CourierError) -> OpenedStream {
        let slot = StreamSlot(hop: hop)
        let (call, running) = services.start(endpoint, plugins, nil, role: .lastDelivery, stream: slot)
        var state = call
        let pipeline = CallPipeline()
        let outcome: CallPipeline.Outcome
        if endpoint.spec.downloadTarget != nil {
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
            return OpenedStream(
                head: head, body: body, request: state.request?.head, attempts: state.budget.attempts,
                clock: settings.clock, cancellation: state.cancellation, plugins: settings.plugins,
                context: context
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
