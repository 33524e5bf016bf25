import HTTPTypes

/// Where a streaming call's attempts leave the body they opened, for the
/// call to hand to its caller once the pipeline has validated the head. A
/// newer attempt's body replaces (and cancels) an older one's, so a per-call
/// interceptor that sends again leaves no transfer behind.
final class StreamSlot: Sendable {
    private let body = Locked<ResponseBodyStream?>(nil)

    /// Keeps `new`, cancelling the body it replaces.
    func put(_ new: ResponseBodyStream) {
        body.withLock { old in
            defer { old = new }
            return old
        }?.cancel()
    }

    /// The body kept, taken out.
    func take() -> ResponseBodyStream? {
        body.withLock { kept in
            defer { kept = nil }
            return kept
        }
    }

    /// Cancels the body kept, if any.
    func discard() { take()?.cancel() }
}

/// One attempt's exchange for a streaming call: the transport's `stream`
/// in place of `send`.
enum StreamExchange {
    /// Opens the stream and waits for its head, within the attempt's
    /// timeout (the transport keeps it). An answer validation accepts keeps its body on the wire (in
    /// `slot`) and comes back with an empty one; any other — an error status,
    /// a content type the endpoint refuses, a JSON answer where the endpoint
    /// expects an envelope (a server that says "no" with a `{code, msg}`
    /// instead of a stream) — has its body read whole, bounded by the call's
    /// `maxBodySize`, so validation reads its envelope and the error carries it.
    static func open(
        _ request: OutgoingRequest, options: TransportOptions, _ state: CallState, into slot: StreamSlot
    ) async throws -> RawResponse {
        let settings = state.settings
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
        let acceptable = (try? settings.validation.validate(response.head)) != nil
        if acceptable, state.plan.envelope == nil || !Self.isJSON(response.head) {
            slot.put(response.body)
            return RawResponse(head: response.head)
        }
        let bytes: [UInt8]
        do {
            bytes = try await response.body.collect(upTo: options.maxBodySize)
        } catch {
            // A refused answer is reported by its status even when its body cannot be read.
            if acceptable { throw error }
            bytes = []
        }
        return RawResponse(head: response.head, body: .bytes(bytes))
    }

    /// Whether the answer is one JSON document (`application/json`, `+json`),
    /// not a stream of them.
    private static func isJSON(_ head: HTTPResponse) -> Bool {
        let type = head.headerFields[.contentType].map(Validation.mediaType) ?? ""
        return type == "application/json" || type.hasSuffix("+json")
    }
}
