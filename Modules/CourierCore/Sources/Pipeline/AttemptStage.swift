import HTTPTypes

/// The attempt loop: the innermost step of the per-call chain. Each `next` a
/// per-call interceptor makes runs it once; every run draws on the call's
/// ``CallBudget``.
///
/// One attempt, in order: begin it (number, share of the deadline) → the
/// reachability gate → the per-attempt interceptors → plugins `prepare`, `willSend` → the transport →
/// plugins `didReceive` → validation. A failed attempt goes to the retry
/// policy, which says stop, or wait and go round again.
enum AttemptStage {
    /// Runs attempts until one succeeds or the retry policy stops.
    nonisolated(nonsending) static func run(_ request: OutgoingRequest, _ state: CallState)
        async throws(CourierError) -> RawResponse
    {
        let settings = state.settings
        let policy = settings.retryPolicy
        let clock = settings.clock
        while true {
            if settings.waitsForConnectivity, let monitor = settings.networkMonitor, !monitor.status.isOnline
            {
                _ = await ConnectivityWait.untilOnline(
                    monitor, bound: ConnectivityWait.bound(state), clock: clock,
                    cancellation: state.cancellation)
            }
            if Task.isCancelled || state.cancellation.isCancelled {
                throw ErrorMapping.cancelled(
                    by: state.cancellation, stage: .transport, request: request.head,
                    attempt: state.budget.attempts)
            }
            let (number, result): (Int, Result<RawResponse, CourierError>)
            if let membership = state.membership {
                // Every attempt, retries included, asks the group's policy
                // (it may queue); it counts as running until it ends.
                do throws(CourierError) {
                    try await membership.admit(state, attempt: state.budget.attempts + 1)
                } catch var refusal {
                    refusal.request = request.head
                    refusal.attempt = state.budget.attempts
                    throw refusal
                }
                (number, result) = await begin(request, state)
                // A stream whose head is in runs until its body ends: it
                // leaves the group then (`APIClient.openStream`).
                let streamOpen: Bool =
                    if case .success = result { state.plan.call.stream != nil } else { false }
                if !streamOpen { membership.finish() }
            } else {
                (number, result) = await begin(request, state)
            }
            let failure: CourierError
            switch result {
            case .success(let response): return response
            case .failure(let error): failure = error
            }
            // Not retried: no attempt could begin (the deadline), or the call
            // was cancelled — by its caller or by a concurrency policy.
            if number == 0 || failure.code == .cancelled || failure.code == .cancelledByPolicy {
                throw failure
            }
            let decision = policy.decide(
                after: failure, attempt: number, method: request.head.method,
                bodyIsReplayable: request.body?.isReplayable ?? true,
                elapsed: policy.deadline == nil ? .zero : state.budget.elapsed(now: clock.now),
                now: clock.date,
                carriesIdempotencyKey: policy.idempotencyKeyField.map { request.head.headerFields[$0] != nil }
                    ?? false)
            switch decision {
            case .retry where policy.budget?.withdrawRetry() == false:
                throw ErrorMapping.stopped(
                    .retryBudgetExhausted, failure: failure, attempt: number, policy: policy)
            case .retry(let delay):
                state.emit(.retryScheduled(delay: delay, failure: failure), attempt: number)
                do {
                    try await CallCancellation.sleep(for: delay, on: clock, cancellation: state.cancellation)
                } catch {
                    throw ErrorMapping.cancelled(
                        by: state.cancellation, stage: .retry, request: request.head, attempt: number)
                }
            case .stop(let reason):
                throw ErrorMapping.stopped(reason, failure: failure, attempt: number, policy: policy)
            }
        }
    }

    /// Begins an attempt — its number and its share of the deadline — and runs it.
    /// - Returns: The attempt's number (0 when the deadline left no time to
    ///   begin one) and how it ended.
    nonisolated(nonsending) private static func begin(
        _ request: OutgoingRequest, _ state: CallState
    ) async -> (Int, Result<RawResponse, CourierError>) {
        let settings = state.settings
        let number: Int
        let remaining: Duration?
        do throws(CourierError) {
            (number, remaining) = try state.budget.begin(
                now: settings.clock.now, deadline: settings.retryPolicy.deadline)
        } catch {
            return (0, .failure(error))
        }
        // The call counts towards the retry budget's share once, at its first attempt.
        if number == 1 { settings.retryPolicy.budget?.recordCall() }
        // The retry policy's deadline caps the attempt's total, or is its total.
        let timeout = settings.timeout.map { total in remaining.map { min(total, $0) } ?? total } ?? remaining
        state.emit(.attemptStarted(number: number, request: request.head), attempt: number)
        let result: Result<RawResponse, CourierError>
        do throws(CourierError) {
            result = .success(try await guarded(request, number: number, timeout: timeout, state))
        } catch {
            result = .failure(error)
        }
        state.emit(.attemptFinished(number: number, result: result), attempt: number)
        return (number, result)
    }

    /// The client's circuit breaker around one attempt: refuses it while the
    /// origin's circuit is open, and records how it ended.
    nonisolated(nonsending) private static func guarded(
        _ request: OutgoingRequest, number: Int, timeout: Duration?, _ state: CallState
    ) async throws(CourierError) -> RawResponse {
        guard let breaker = state.settings.circuitBreaker else {
            return try await attempt(request, number: number, timeout: timeout, state)
        }
        let origin = "\(request.head.scheme ?? "")://\(request.head.authority ?? "")"
        let permit = try breaker.admit(origin, request: request.head, attempt: number)
        let outcome: Result<RawResponse, CourierError>
        do throws(CourierError) {
            outcome = .success(try await attempt(request, number: number, timeout: timeout, state))
        } catch {
            outcome = .failure(error)
        }
        breaker.record(origin, permit, outcome)
        return try outcome.get()
    }

    /// One attempt: the per-attempt chain around the exchange, then validation.
    nonisolated(nonsending) private static func attempt(
        _ request: OutgoingRequest, number: Int, timeout: Duration?, _ state: CallState
    )
        async throws(CourierError) -> RawResponse
    {
        var context = state.context
        context.attempt = number
        let settings = state.settings
        if let monitor = settings.networkMonitor {
            let status = monitor.status
            guard status.isOnline else {
                let waited = settings.waitsForConnectivity ? ", and did not come back in time" : ""
                var error = CourierError(
                    .offline, stage: .transport,
                    message: "offline (\(status.reason))\(waited): nothing was sent")
                error.request = request.head
                error.attempt = number
                throw error
            }
        }
        // A download is written to a staging file and moved into place only
        // once validated; whatever happens in between, the staging file goes.
        var staging: DownloadStaging?
        if let destination = state.plan.spec.destination {
            do {
                staging = try DownloadStaging(destination)
            } catch {
                throw ErrorMapping.transport(error, request: request.head, attempt: number)
            }
        }
        defer { staging?.discard() }
        let resume = staging.flatMap { staging in
            staging.destination.options.contains(.resumable)
                ? DownloadResume(staging.destination, request: request.head) : nil
        }
        // What the cache and coalescing keyed the call with, when every
        // later component declared that it adds no credential: held to it.
        let keyed = state.identity?.addsNoCredential == true ? request.head : nil
        let options = TransportOptions(
            timeout: timeout, destination: staging?.staged, maxBodySize: settings.maxBodySize,
            maxDownloadSize: settings.maxDownloadSize,
            progress: state.plan.call.progress, cancellation: state.cancellation,
            idleTimeout: settings.idleTimeout, connectTimeout: settings.connectTimeout)
        var response: RawResponse
        do {
            let interceptors = settings.attemptInterceptors
            if interceptors.isEmpty {
                response = try await transfer(
                    request, context: context, options, resume, staging, keyed: keyed, state)
            } else {
                let chain = InterceptorChain.fold(interceptors, context: context, identity: state.identity) {
                    [context, staging] request in
                    try await transfer(
                        request, context: context, options, resume, staging, keyed: keyed, state)
                }
                response = try await chain(request)
            }
        } catch {
            throw state.cancellation.isCancelled
                ? ErrorMapping.cancelled(
                    by: state.cancellation, stage: .transport, request: request.head, attempt: number)
                : ErrorMapping.courier(error)
        }
        state.budget.addResends(response.metrics.resends ?? 0)
        // A transport that does not honour the call's cancellation still
        // returns: what it returned after the call was cancelled is dropped.
        if state.cancellation.isCancelled {
            throw ErrorMapping.cancelled(
                by: state.cancellation, stage: .transport, request: request.head, attempt: number)
        }
        do throws(CourierError) {
            try ValidationStage.validate(&response, state, request: request.head, attempt: number)
        } catch var failure {
            if let body = staging?.failedBody(of: failure.response) { failure.response?.body = body }
            throw failure
        }
        do {
            try staging?.commit(&response)
        } catch {
            throw ErrorMapping.transport(error, request: request.head, attempt: number)
        }
        return response
    }

    /// The exchange, continuing a resumable download's kept bytes: it asks
    /// for the rest, joins a 206 to them, keeps what a failed transfer
    /// received, and asks once more for the whole file when the kept bytes
    /// do not fit the answer (``DownloadResume``).
    nonisolated(nonsending) private static func transfer(
        _ request: OutgoingRequest, context: CallContext, _ options: TransportOptions,
        _ resume: DownloadResume?, _ staging: DownloadStaging?, keyed: HTTPRequest?, _ state: CallState
    ) async throws(CourierError) -> RawResponse {
        guard let resume, let staging else {
            return try await exchange(request, context: context, options: options, keyed: keyed, state)
        }
        var sent = request
        var options = options
        resume.ask(&sent.head)
        options.maxDownloadSize = options.maxDownloadSize.map { max(0, $0 - resume.resumedBytes) }
        let response: RawResponse
        do {
            response = try await exchange(sent, context: context, options: options, keyed: keyed, state)
        } catch {
            resume.keep(from: staging.staged)
            throw error
        }
        guard resume.settle(response, staged: staging.staged) == .restart else { return response }
        staging.discard()
        options.maxDownloadSize = state.settings.maxDownloadSize
        do {
            return try await exchange(request, context: context, options: options, keyed: keyed, state)
        } catch {
            resume.keep(from: staging.staged)
            throw error
        }
    }

    /// Plugins around the transport: `prepare`, `willSend`, send, `didReceive`.
    /// Every `willSend` is matched by one `didReceive`. With `keyed`, the
    /// credential fields must still be the ones the cache and coalescing
    /// keyed the call with (``PassIdentity/checkUnchanged(_:against:_:)``).
    nonisolated(nonsending) private static func exchange(
        _ request: OutgoingRequest, context: CallContext, options: TransportOptions, keyed: HTTPRequest?,
        _ state: CallState
    ) async throws(CourierError) -> RawResponse {
        let plugins = state.settings.plugins
        var context = context
        if !plugins.isEmpty { context.requestBody = request.body }  // what the attempt chain left
        var head = request.head
        let declared = state.identity.map { ($0, state.settings.attemptInterceptors.count) }
        for (index, plugin) in plugins.enumerated() {
            var context = context
            if let (identity, offset) = declared {
                context.declaredCredential = identity.declaration(at: offset + index)
            }
            do {
                head = try await plugin.prepare(head, context: context)
            } catch {
                throw ErrorMapping.raised(
                    error, by: plugin, code: .vetoed, stage: .interception, what: "plugin", request: head,
                    attempt: context.attempt)
            }
        }
        // The head as it leaves the last plugin: checked once, before anyone sends it.
        do throws(CourierError) {
            try RequestHeadCheck.check(head)
            if let keyed { try PassIdentity.checkUnchanged(head, against: keyed, state.settings.credentials) }
        } catch var error {
            error.request = head
            error.attempt = context.attempt
            throw error
        }
        for plugin in plugins { await plugin.willSend(head, context: context) }
        let result: Result<RawResponse, CourierError>
        do {
            let sent = OutgoingRequest(head: head, body: request.body)
            if let slot = state.plan.call.stream {
                result = .success(try await StreamExchange.open(sent, options: options, state, into: slot))
            } else {
                result = .success(
                    try await HopStage.send(sent, options: options, state, attempt: context.attempt))
            }
        } catch {
            result = .failure(ErrorMapping.transport(error, request: head, attempt: context.attempt))
        }
        for plugin in plugins { await plugin.didReceive(result, request: head, context: context) }
        return try result.get()
    }
}
