package import HTTPTypes

/// Turns whatever a stage threw into a ``CourierError`` with the right code,
/// stage and context. Errors that already are `CourierError` keep their code.
package enum ErrorMapping {
    static func cancelled(stage: CourierError.Stage, request: HTTPRequest?, attempt: Int) -> CourierError {
        CourierError(
            .cancelled, stage: stage, message: "the call was cancelled", request: request, attempt: attempt)
    }

    /// The error of a call cancelled from outside: the canceller's reason
    /// (a concurrency policy's, a tag's) when it gave one, otherwise
    /// ``CourierError/Code/cancelled``. A plain cancellation's stage is where
    /// the call was, whoever ended it.
    package static func cancelled(
        by cancellation: CallCancellation, stage: CourierError.Stage, request: HTTPRequest?, attempt: Int
    ) -> CourierError {
        guard var reason = cancellation.reason else {
            return cancelled(stage: stage, request: request, attempt: attempt)
        }
        if reason.code == .cancelled { reason.stage = stage }
        reason.request = reason.request ?? request
        reason.attempt = attempt
        return reason
    }

    /// Errors from the transport: timeouts, cancellation and the rest.
    package static func transport(_ error: any Error, request: HTTPRequest, attempt: Int) -> CourierError {
        if var courier = error as? CourierError {
            courier.request = courier.request ?? request
            courier.attempt = attempt
            return courier
        }
        if error is CancellationError {
            return cancelled(stage: .transport, request: request, attempt: attempt)
        }
        guard let transport = error as? TransportError else {
            return CourierError(
                .transport, stage: .transport, message: "\(error)", request: request, attempt: attempt,
                underlying: error)
        }
        let code: CourierError.Code =
            switch transport.code {
            case .timedOut, .connectionUnavailable: .timedOut
            case .cancelled: .cancelled
            default: .transport
            }
        return CourierError(
            code, stage: .transport, message: transport.description, request: request, attempt: attempt,
            underlying: transport)
    }

    /// An error raised by a component of the user's (an interceptor, a
    /// plugin, a parameter interceptor, a mapping step, a response handler):
    /// named after it, or passed through when it came from further in.
    /// - Parameters:
    ///   - error: What was thrown.
    ///   - component: The component that threw it (or let it through).
    ///   - code: The code for a foreign error (``CourierError/Code/interceptor``
    ///     around the call, ``CourierError/Code/invalidRequest`` while building).
    ///   - stage: The stage for a foreign error.
    ///   - what: What the component is, for the message: `interceptor`, `plugin`.
    ///   - request: The request the error belongs to, when there is one.
    ///   - attempt: The attempt it happened in; 0 before the first.
    /// - Returns: The error, named after the component when it raised it.
    static func raised(
        _ error: any Error, by component: Any, code: CourierError.Code, stage: CourierError.Stage,
        what: String, request: HTTPRequest? = nil, attempt: Int = 0
    ) -> CourierError {
        if var courier = error as? CourierError {
            // A veto or a failure of its own that does not yet say who raised
            // it came from this component; anything else passed through it.
            if courier.thrownBy == nil,
                courier.code == .vetoed || courier.code == .interceptor || courier.code == .credentialMismatch
            {
                courier.thrownBy = componentName(of: component)
            }
            courier.request = courier.request ?? request
            return courier
        }
        if error is CancellationError { return cancelled(stage: stage, request: request, attempt: attempt) }
        if let request, error is TransportError {
            return transport(error, request: request, attempt: attempt)
        }
        let name = componentName(of: component)
        return CourierError(
            code, stage: stage, message: "\(what) \(name) failed: \(error)", request: request,
            attempt: attempt,
            underlying: error, thrownBy: name)
    }

    /// An error that left a closure-typed chain: always a ``CourierError``
    /// (the chains map everything else), kept as one.
    static func courier(_ error: any Error) -> CourierError {
        if let courier = error as? CourierError { return courier }
        if error is CancellationError { return cancelled(stage: .interception, request: nil, attempt: 0) }
        return CourierError(.interceptor, stage: .interception, message: "\(error)", underlying: error)
    }

    /// The `.cache` error for a stored response that failed validation or
    /// decoding with `error`.
    static func unusableStored(_ error: CourierError) -> CourierError {
        var response = error.response
        response?.validation = nil
        return CourierError(
            .cache, stage: .cache, message: "a stored response could not be used (\(error.message))",
            request: error.request, response: response, underlying: error)
    }

    /// Errors from serializers and decoders.
    static func decoding(_ error: any Error) -> CourierError {
        if let courier = error as? CourierError { return courier }
        if let decoding = error as? DecodingError {
            return CourierError(
                .decoding, stage: .decoding, message: DecodingErrorDescription.describe(decoding),
                underlying: decoding)
        }
        return CourierError(.decoding, stage: .decoding, message: "\(error)", underlying: error)
    }

    /// The error for a retry stage that stopped.
    static func stopped(
        _ reason: RetryStopReason, failure: CourierError, attempt: Int, policy: RetryPolicy
    ) -> CourierError {
        func wrapped(_ code: CourierError.Code, _ message: String) -> CourierError {
            var error = CourierError(
                code, stage: .retry, message: message, request: failure.request, response: failure.response,
                attempt: attempt, businessFailure: failure.businessFailure, underlying: failure)
            error.retryStop = RetryStop(reason: reason, detail: message)
            return error
        }
        func annotated(_ detail: String) -> CourierError {
            var error = failure
            error.retryStop = RetryStop(reason: reason, detail: detail)
            return error
        }
        switch reason {
        case .attemptsExhausted where attempt > 1:
            return wrapped(.retriesExhausted, "all \(attempt) attempts failed; the last with \(failure.code)")
        case .bodyNotReplayable:
            return wrapped(
                .bodyNotReplayable,
                "a retry was due after \(failure.code) but the request body is a one-shot stream")
        case .deadlineExceeded:
            let deadline = policy.deadline.map { " of \($0)" } ?? ""
            return wrapped(
                .deadlineExceeded,
                "the retry deadline\(deadline) left no time for attempt \(attempt + 1) after \(failure.code)")
        case .retryAfterTooLong:
            let asked = failure.response?.head.headerFields[.retryAfter].map { " (Retry-After: \($0))" } ?? ""
            return annotated(
                "the server asked for a longer wait\(asked) than the policy's maxRetryAfter of \(policy.maxRetryAfter)"
            )
        case .methodNotRetryable:
            let method = failure.request.map { "\($0.method) " } ?? ""
            return annotated(
                "a retry was due after \(failure.code) but \(method)is not a retryable method "
                    + "and the request carries no idempotency key")
        case .retryBudgetExhausted:
            let budget = policy.allowance
            let counts =
                budget.map { " (\($0.counts.retries) retries for \($0.counts.calls) calls in the window)" }
                ?? ""
            return annotated(
                "a retry was due after \(failure.code) but the retry budget is spent\(counts): "
                    + (budget?.description ?? "no budget"))
        default:
            return failure
        }
    }
}

/// Readable text for `DecodingError`, naming the coding path.
enum DecodingErrorDescription {
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context)): expected \(type) — \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "\(path(context)): expected \(type) but found null — \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context, appending: key)): key not found"
        case .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// `data.items[2].id`, or `(root)`.
    static func path(_ context: DecodingError.Context, appending key: (any CodingKey)? = nil) -> String {
        var keys = context.codingPath
        if let key { keys.append(key) }
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "(root)" : text
    }
}
