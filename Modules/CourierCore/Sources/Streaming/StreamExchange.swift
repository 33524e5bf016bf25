import HTTPTypes

/// A streaming call's guard over the bodies its attempts open. The body
/// itself travels in the attempt's response (``RawResponse/openBody``) to
/// the end of the pass; the slot only makes sure no transfer is left
/// behind: a newer attempt's body cancels an older one's (a per-call
/// interceptor that sends again), and when the pass ends, a body it did not
/// return is cancelled.
final class StreamSlot: Sendable {
    private let body = Locked<ResponseBodyStream?>(nil)
    /// How each hop is sent when not through the transport's `stream`
    /// (CourierWebSocket's opening handshake); `nil`: the transport's.
    let hop: StreamHop?

    init(hop: StreamHop? = nil) { self.hop = hop }

    /// Tracks `new`, cancelling the body it replaces.
    func put(_ new: ResponseBodyStream) {
        body.withLock { old in
            defer { old = new }
            return old
        }?.cancel()
    }

    /// Ends the guard when the pass has returned `kept` (or no body):
    /// the body tracked is cancelled unless it is `kept`.
    func release(keeping kept: ResponseBodyStream?) {
        let tracked = body.withLock { tracked in
            defer { tracked = nil }
            return tracked
        }
        guard let tracked, kept.map(tracked.isSame(as:)) != true else { return }
        tracked.cancel()
    }
}

/// The innermost step of a streaming call's attempt (``AttemptSlot/exchange``):
/// the transport's `stream` in place of `send`.
struct StreamExchangeStep: AttemptStep {
    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        do {
            guard let slot = state.plan.call.stream else {
                throw CourierError(
                    .invalidRequest, stage: .transport, message: "a stream's exchange without a stream")
            }
            return try await StreamExchange.open(attempt.request, options: attempt.options, state, into: slot)
        } catch {
            throw ErrorMapping.transport(error, request: attempt.request.head, attempt: attempt.number)
        }
    }
}

/// How one hop of a streaming call is sent in place of the transport's
/// `stream`: the request as it leaves the redirect follower, and the
/// response head (and body) it got.
package typealias StreamHop = @Sendable (OutgoingRequest, TransportOptions) async throws -> StreamingResponse

/// One attempt's exchange for a streaming call.
enum StreamExchange {
    /// Opens the stream and waits for its head, within the attempt's
    /// timeout (the transport keeps it). An answer validation accepts comes
    /// back with its body still on the wire (``RawResponse/openBody``, tracked
    /// by `slot`); any other — an error status,
    /// a content type the endpoint refuses, a JSON answer where the endpoint
    /// expects an envelope (a server that says "no" with a `{code, msg}`
    /// instead of a stream) — has its body read whole, bounded by the call's
    /// `maxBodySize`, so validation reads its envelope and the error carries it.
    static func open(
        _ request: OutgoingRequest, options: TransportOptions, _ state: CallState, into slot: StreamSlot
    ) async throws -> RawResponse {
        let settings = state.settings
        if let hop = slot.hop {
            let response = try await settings.redirects.stream(
                request, options: options, cookies: settings.cookies, credentials: settings.credentials,
                open: hop)
            return try await keep(response, options: options, state, into: slot)
        }
        guard let transport = settings.transport as? any StreamingTransport else {
            throw CourierError(
                .invalidRequest, stage: .transport,
                message:
                    "\(type(of: settings.transport)) cannot stream a response body (it is no StreamingTransport)"
            )
        }
        // The attempt's timeout bounds each hop's head; the body has the
        // stream's own deadlines (StreamSession).
        let response = try await HopStage.stream(request, options: options, through: transport, settings)
        return try await keep(response, options: options, state, into: slot)
    }

    /// An answer validation accepts, with its body still on the wire; any
    /// other read whole (see ``open(_:options:_:into:)``).
    private static func keep(
        _ response: StreamingResponse, options: TransportOptions, _ state: CallState, into slot: StreamSlot
    ) async throws -> RawResponse {
        let settings = state.settings
        let acceptable = (try? settings.validation.validate(response.head)) != nil
        if acceptable, state.plan.envelope == nil || !Self.isJSON(response.head) {
            slot.put(response.body)
            var open = RawResponse(head: response.head)
            open.openBody = response.body
            open.redirectedTo = response.redirectedTo
            return open
        }
        let bytes: [UInt8]
        do {
            bytes = try await response.body.collect(upTo: options.maxBodySize)
        } catch {
            // A refused answer is reported by its status even when its body cannot be read.
            if acceptable { throw error }
            bytes = []
        }
        var read = RawResponse(head: response.head, body: .bytes(bytes))
        read.redirectedTo = response.redirectedTo
        return read
    }

    /// Whether the answer is one JSON document (`application/json`, `+json`),
    /// not a stream of them.
    private static func isJSON(_ head: HTTPResponse) -> Bool {
        let type = head.headerFields[.contentType].map(Validation.mediaType) ?? ""
        return type == "application/json" || type.hasSuffix("+json")
    }
}
