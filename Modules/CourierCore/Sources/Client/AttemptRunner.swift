import HTTPTypes

/// The per-call interceptor chain around the attempt loop, and each attempt:
/// per-attempt interceptors, plugins, transport, validation, envelope, retry.
struct AttemptRunner: Sendable {
    let call: CallRunner
    let spec: EndpointSpec
    let context: CallContext
    let attempts: AttemptCounter
    let memo: EnvelopeMemo

    var configuration: APIClient.Configuration { call.configuration }

    /// Runs the per-call chain; its innermost step is the attempt loop.
    func runChain(_ request: OutgoingRequest) async -> Result<RawResponse, CourierError> {
        let interceptors = configuration.callInterceptors + spec.callInterceptors
        let chain = Self.fold(interceptors, context: context) { request in
            try await self.attemptLoop(request)
        }
        do {
            return .success(try await chain(request))
        } catch {
            let attempt = attempts.value
            return .failure(ErrorMapping.intercepted(error, request: request.head, attempt: attempt))
        }
    }

    /// Folds interceptors around `end` once: the first interceptor sees the
    /// request first and the response last.
    static func fold(
        _ interceptors: [any Interceptor], context: CallContext, end: @escaping InterceptorNext
    ) -> InterceptorNext {
        interceptors.reversed().reduce(end) { next, interceptor in
            { request in try await interceptor.intercept(request, context: context, next: next) }
        }
    }

    private func attemptLoop(_ request: OutgoingRequest) async throws(CourierError) -> RawResponse {
        let clock = configuration.clock
        let policy = spec.retryPolicy ?? configuration.retryPolicy
        let start = clock.now
        var attempt = 0
        while true {
            attempt += 1
            let number = attempt
            attempts.value = number
            if Task.isCancelled {
                throw ErrorMapping.cancelled(stage: .transport, request: request.head, attempt: attempt)
            }
            var timeout = spec.timeout ?? configuration.timeout
            if let deadline = policy.deadline {
                let remaining = deadline - (clock.now - start)
                guard remaining > .zero else {
                    throw CourierError(
                        .deadlineExceeded, stage: .retry,
                        message: "the retry deadline of \(deadline) ran out before attempt \(attempt)",
                        request: request.head, attempt: attempt)
                }
                timeout = min(timeout, remaining)
            }
            do {
                return try await self.attempt(request, number: attempt, timeout: timeout)
            } catch let failure {
                if failure.code == .cancelled { throw failure }
                let decision = policy.decide(
                    after: failure, attempt: attempt, method: request.head.method,
                    bodyIsReplayable: request.body?.isReplayable ?? true, elapsed: clock.now - start,
                    now: clock.date)
                switch decision {
                case .retry(let delay):
                    do {
                        try await clock.sleep(for: delay)
                    } catch {
                        throw ErrorMapping.cancelled(stage: .retry, request: request.head, attempt: attempt)
                    }
                case .stop(let reason):
                    throw ErrorMapping.stopped(reason, failure: failure, attempt: attempt, policy: policy)
                }
            }
        }
    }

    /// One attempt: the per-attempt chain, then validation and the envelope.
    private func attempt(_ request: OutgoingRequest, number: Int, timeout: Duration)
        async throws(CourierError)
        -> RawResponse
    {
        var attemptContext = self.context
        attemptContext.attempt = number
        let context = attemptContext
        let options = TransportOptions(
            timeout: timeout, destination: spec.destination,
            maxBodySize: spec.maxBodySize ?? configuration.maxBodySize, progress: call.progress)
        let interceptors = configuration.attemptInterceptors + spec.attemptInterceptors
        let chain = Self.fold(interceptors, context: context) { request in
            try await self.exchange(request, context: context, options: options)
        }
        let response: RawResponse
        do {
            response = try await chain(request)
        } catch {
            throw ErrorMapping.intercepted(error, request: request.head, attempt: number)
        }
        do throws(CourierError) {
            try (spec.validation ?? configuration.validation).validate(response.head)
            if let format = spec.envelopeFormat { try checkEnvelope(response, format: format) }
        } catch var failure {
            failure.request = request.head
            failure.response = response
            failure.attempt = number
            if failure.code == .status, let format = spec.envelopeFormat {
                // A 4xx or 5xx that carries an envelope: keep its code and message.
                failure.businessFailure = businessFailure(in: response, format: format)
            }
            throw failure
        }
        return response
    }

    /// The envelope's non-success code and message, when the body is a readable envelope.
    private func businessFailure(in response: RawResponse, format: EnvelopeFormat) -> CourierError
        .BusinessFailure?
    {
        guard let bytes = response.body.bytes, let decoder = spec.decoder ?? configuration.decoder,
            let head = try? decoder.readEnvelope(bytes, format: format), !format.isSuccess(head.code)
        else { return nil }
        return .init(code: head.code, message: head.message)
    }

    /// Plugins around the transport: `prepare`, `willSend`, send, `didReceive`.
    private func exchange(_ request: OutgoingRequest, context: CallContext, options: TransportOptions)
        async throws -> RawResponse
    {
        var head = request.head
        for plugin in configuration.plugins {
            do {
                head = try await plugin.prepare(head, context: context)
            } catch {
                throw ErrorMapping.wrap(
                    error, code: .vetoed, stage: .interception,
                    what: "plugin \(type(of: plugin)) vetoed the request",
                    request: head, attempt: context.attempt)
            }
        }
        for plugin in configuration.plugins { await plugin.willSend(head, context: context) }
        let result: Result<RawResponse, CourierError>
        do {
            let sent = OutgoingRequest(head: head, body: request.body)
            result = .success(try await configuration.transport.send(sent, options: options))
        } catch {
            result = .failure(ErrorMapping.transport(error, request: head, attempt: context.attempt))
        }
        for plugin in configuration.plugins {
            await plugin.didReceive(result, request: head, context: context)
        }
        return try result.get()
    }

    private func checkEnvelope(_ response: RawResponse, format: EnvelopeFormat) throws(CourierError) {
        guard let bytes = response.body.bytes else { return }
        guard let decoder = spec.decoder ?? configuration.decoder else {
            throw CourierError(
                .noDecoder, stage: .envelope,
                message: "an envelope format is set but no ResponseDecoder is configured to read it")
        }
        let head: EnvelopeHead
        do {
            head = try decoder.readEnvelope(bytes, format: format)
        } catch {
            throw CourierError(
                .envelope, stage: .envelope, message: "malformed envelope: \(error)", underlying: error)
        }
        memo.store(bytes, head)
        guard format.isSuccess(head.code) else {
            let text = head.message.map { ": \($0)" } ?? ""
            throw CourierError(
                .envelope, stage: .envelope,
                message: "the server answered with business code \(head.code)\(text)",
                businessFailure: .init(code: head.code, message: head.message))
        }
    }
}
