public import HTTPTypes

/// The one error type every Courier call throws.
///
/// A failure anywhere in the pipeline — building the request, an interceptor,
/// the transport, status validation, the envelope, decoding, retrying — ends up
/// as a `CourierError`. It says *what* went wrong (``code``), *where*
/// (``stage``), and carries as much context as the call had reached: the
/// request, the response with its body, the attempt count and the underlying
/// error.
///
/// `code` is an open set (a struct with static members, not an enum), so new
/// codes never break a `switch` in your code. Compare with `==`:
///
/// ```swift
/// do { let user = try await client.send(.user(id: 7)) }
/// catch let error where error.code == .envelope {
///     print(error.businessFailure?.message ?? "")
/// }
/// ```
public struct CourierError: Error, Sendable {
    /// What went wrong.
    public var code: Code
    /// The pipeline stage the call was in when it failed.
    public var stage: Stage
    /// A human sentence describing the failure; short, without the body.
    public var message: String
    /// The request head as it was last built or sent, when the call got that far.
    public var request: HTTPRequest?
    /// The response, when one arrived (status, headers, full body, metrics).
    public var response: RawResponse?
    /// The 1-based attempt the failure belongs to, numbered across the whole
    /// call (retries, every `next` of a per-call interceptor, replays); for a
    /// failure after the attempts (an interceptor, decoding, a response
    /// handler) the call's last attempt; 0 when no attempt was made.
    public var attempt: Int
    /// The business failure (envelope `code` and `msg`) for ``Code/envelope`` errors
    /// caused by a non-success code.
    public var businessFailure: BusinessFailure?
    /// The error that caused this one, if any (a transport error, a
    /// `DecodingError`, the last attempt's error after retries ran out, …).
    public var underlying: (any Error & Sendable)?
    /// The component of yours that threw, for errors raised by user code in
    /// the pipeline: an interceptor, parameter interceptor, endpoint mapping
    /// step, plugin or response handler. Named by its type
    /// (`MyApp.RefreshInterceptor`), or, for one made from a closure, by the
    /// name given to it or the file and line where the closure was written.
    public var thrownBy: String?
    /// Why the retry policy stopped retrying a failure it would otherwise
    /// have retried (out of attempts, past the deadline, a one-shot body, a
    /// non-idempotent method, a `Retry-After` over the cap); `nil` when the
    /// failure was not retryable at all or nothing stopped a retry.
    public var retryStop: RetryStop?
    /// A sentence for the user, from the node's
    /// ``BusinessCodes/messages`` for a business failure; `nil` when none
    /// was given. Never shown in ``description``.
    public var userMessage: String?

    /// Creates an error; the pipeline fills in request, response and attempt as it goes.
    public init(
        _ code: Code,
        stage: Stage,
        message: String,
        request: HTTPRequest? = nil,
        response: RawResponse? = nil,
        attempt: Int = 0,
        businessFailure: BusinessFailure? = nil,
        underlying: (any Error & Sendable)? = nil,
        thrownBy: String? = nil
    ) {
        self.code = code
        self.stage = stage
        self.message = message
        self.request = request
        self.response = response
        self.attempt = attempt
        self.businessFailure = businessFailure
        self.underlying = underlying
        self.thrownBy = thrownBy
    }

    /// The error an interceptor or plugin throws to stop a call before it is sent.
    public static func vetoed(_ reason: String) -> CourierError {
        CourierError(.vetoed, stage: .interception, message: reason)
    }

    /// The error a caller gets when the call (its Swift `Task`) was cancelled.
    public var isCancelled: Bool { code == .cancelled }

    /// The deepest `CourierError` in the ``underlying`` chain: for
    /// ``Code/retriesExhausted`` it is the last attempt's error.
    public var rootCause: CourierError {
        var current = self
        while let next = current.underlying as? CourierError { current = next }
        return current
    }
}

/// Why a retry policy stopped, with a sentence that says it for humans.
public struct RetryStop: Sendable, Hashable {
    /// The reason, for code.
    public var reason: RetryStopReason
    /// The reason, for people: what was due and what prevented it.
    public var detail: String

    /// Creates a stop.
    public init(reason: RetryStopReason, detail: String) {
        self.reason = reason
        self.detail = detail
    }
}

extension CourierError {
    /// The server's business verdict from a `{code, msg, data}` envelope.
    public struct BusinessFailure: Sendable, Hashable {
        /// The envelope's code, as the server sent it.
        public var code: EnvelopeCode
        /// The envelope's message (`msg`, `message`, `desc`, …), if present.
        public var message: String?

        /// Creates a business failure.
        public init(code: EnvelopeCode, message: String?) {
            self.code = code
            self.message = message
        }
    }
}
