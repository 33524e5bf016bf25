import HTTPTypes

/// The innermost step of a call's attempt (``AttemptSlot/exchange``): the
/// request goes out hop by hop. The client's ``RedirectPolicy`` follows
/// redirects and its cookie jar rides every hop — here, once, for every
/// transport; a transport sends the one request it is given. Plugins and
/// per-attempt interceptors see the attempt's first request and its last
/// response (the hops between are in the journal of the server, and in a
/// ``Transport`` wrapper such as `RecordingTransport`).
struct HopStage: AttemptStep {
    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        do {
            return try await Self.send(
                attempt.request, options: attempt.options, state, attempt: attempt.number)
        } catch {
            throw ErrorMapping.transport(error, request: attempt.request.head, attempt: attempt.number)
        }
    }

    /// Sends `request` through the client's transport, following redirects.
    nonisolated(nonsending) static func send(
        _ request: OutgoingRequest, options: TransportOptions, _ state: CallState, attempt: Int
    )
        async throws -> RawResponse
    {
        let settings = state.settings
        let transport = settings.transport
        let onHop: ((Int, HTTPRequest, HTTPRequest) -> Void)? =
            settings.monitors.isEmpty
            ? nil
            : { status, from, to in
                state.emit(.redirected(status: status, from: from, to: to), attempt: attempt)
            }
        return try await settings.redirects.exchange(
            request, options: options, cookies: settings.cookies, credentials: settings.credentials,
            onHop: onHop
        ) { hop in
            try await transport.send(hop, options: options)
        }
    }

    /// Opens `request` as a stream, following redirects: each hop's head
    /// within the attempt's timeout, the last hop's body left open.
    nonisolated(nonsending) static func stream(
        _ request: OutgoingRequest, options: TransportOptions, through transport: any StreamingTransport,
        _ settings: CallSettings
    ) async throws -> StreamingResponse {
        try await settings.redirects.stream(
            request, options: options, cookies: settings.cookies, credentials: settings.credentials
        ) { hop, options in
            try await transport.stream(hop, options: options)
        }
    }
}

/// The head as it leaves the last component that could change it
/// (``AttemptSlot/headCheck``), checked once before anyone sends it
/// (``RequestHeadCheck``).
struct HeadCheckStep: AttemptStep {
    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        try Self.check(attempt)
        return try await next(&attempt, state)
    }

    /// Checks `attempt`'s head, for the error naming its request and number.
    static func check(_ attempt: Attempt) throws(CourierError) {
        do throws(CourierError) {
            try RequestHeadCheck.check(attempt.request.head)
        } catch var error {
            error.request = attempt.request.head
            error.attempt = attempt.number
            throw error
        }
    }
}
