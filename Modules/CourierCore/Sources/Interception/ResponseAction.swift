/// What a response handler decides after the model was decoded (or failed to).
public enum ResponseAction<Model: Sendable>: Sendable {
    /// Give the caller this result (the original, or a replacement).
    case deliver(Result<Model, CourierError>)
    /// Run the whole call again after a delay, with the endpoint as it is.
    case retry(after: Duration)
    /// Run the call again after a delay with a changed endpoint, for example
    /// with a captcha parameter added after a business error.
    case resend(Endpoint<Model>, after: Duration)
}

/// Everything a response handler may look at besides the result.
public struct ResponseContext: Sendable {
    /// The call.
    public let call: CallContext
    /// The raw response, when one arrived.
    public let response: RawResponse?
    /// How many times response handlers already asked to run the call again.
    public let replays: Int
}

/// Inspects a call's typed result and delivers it, replaces it, or runs the
/// call again: CSAPIService's `replaceResponseHandler`, made async.
///
/// Handlers run in order after decoding; the first that does not deliver the
/// result unchanged decides. Replays are bounded by
/// ``APIClient/Configuration/maxReplays``.
public struct ResponseHandler<Model: Sendable>: Sendable {
    let body: @Sendable (Result<Model, CourierError>, ResponseContext) async -> ResponseAction<Model>

    /// Wraps a closure.
    public init(
        _ body:
            @escaping @Sendable (Result<Model, CourierError>, ResponseContext) async -> ResponseAction<Model>
    ) {
        self.body = body
    }
}
