import HTTPTypes

/// Which call validated a response, and the envelope head it read: carried
/// by the response itself, so decoding reads the envelope from the same
/// parse and a response passed back unchanged is not checked twice.
struct ValidationStamp: Sendable {
    /// The call that validated the response.
    let callID: UInt64
    /// The envelope head, when the call has an envelope format and the body is in memory.
    let envelope: EnvelopeHead?
}

/// Status, content type and envelope checks: one stage, run on every response
/// that reaches it — from the transport inside each attempt, and from
/// whatever a per-call interceptor or a plugin's `process` hands back.
enum ValidationStage {
    /// Whether this call already validated this very response (stamped it,
    /// and nothing changed its head or body since).
    static func isValidated(_ response: RawResponse, by state: CallState) -> Bool {
        response.validation?.callID == state.id
    }

    /// Stamps the response as valid for this call, or throws why it is not.
    ///
    /// A response this call already stamped is left as it is; any other (made
    /// up by an interceptor, changed by one, stamped by another call) is
    /// checked in full.
    /// - Parameters:
    ///   - response: What reached the stage; stamped on success.
    ///   - state: The call.
    ///   - request: The request head the response answers, for the error.
    ///   - attempt: The attempt the response belongs to (0 when nothing was sent), for the error.
    /// - Throws: ``CourierError/Code/status``, ``CourierError/Code/contentType``,
    ///   ``CourierError/Code/envelope`` or ``CourierError/Code/noDecoder``, with
    ///   the response attached.
    static func validate(
        _ response: inout RawResponse, _ state: CallState, request: HTTPRequest?, attempt: Int
    )
        throws(CourierError)
    {
        if isValidated(response, by: state) { return }
        let settings = state.settings
        var head: EnvelopeHead?
        do throws(CourierError) {
            try settings.validation.validate(response.head)
            // (A stream's body is still on the wire: its envelope is not read.)
            if let format = state.plan.envelope, let bytes = response.body.bytes,
                !state.plan.bodyMayBeOpen || !bytes.isEmpty
            {
                let envelope = try readEnvelope(bytes, format: format, decoder: settings.decoder)
                guard format.isSuccess(envelope.code) else {
                    let text = envelope.message.map { ": \($0)" } ?? ""
                    throw CourierError(
                        .envelope, stage: .envelope,
                        message: "the server answered with business code \(envelope.code)\(text)",
                        businessFailure: .init(code: envelope.code, message: envelope.message))
                }
                head = envelope
            }
        } catch var failure {
            failure.response = response
            failure.request = request
            failure.attempt = attempt
            if failure.code == .status, let format = state.plan.envelope {
                // A 4xx or 5xx that carries an envelope: keep its code and message.
                failure.businessFailure = businessFailure(
                    in: response, format: format, decoder: settings.decoder)
            }
            throw failure
        }
        response.validation = ValidationStamp(callID: state.id, envelope: head)
    }

    private static func readEnvelope(
        _ bytes: [UInt8], format: EnvelopeFormat, decoder: (any ResponseDecoder)?
    )
        throws(CourierError) -> EnvelopeHead
    {
        guard let decoder else {
            throw CourierError(
                .noDecoder, stage: .envelope,
                message: "an envelope format is set but no ResponseDecoder is configured to read it")
        }
        do {
            return try decoder.readEnvelope(bytes, format: format)
        } catch {
            throw CourierError(
                .envelope, stage: .envelope, message: "malformed envelope: \(error)", underlying: error)
        }
    }

    /// The envelope's non-success code and message, when the body is a readable envelope.
    private static func businessFailure(
        in response: RawResponse, format: EnvelopeFormat, decoder: (any ResponseDecoder)?
    ) -> CourierError.BusinessFailure? {
        guard let bytes = response.body.bytes, let decoder,
            let head = try? decoder.readEnvelope(bytes, format: format), !format.isSuccess(head.code)
        else { return nil }
        return .init(code: head.code, message: head.message)
    }
}
