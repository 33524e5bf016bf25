/// What a response handler decides after the model was decoded (or failed to).
public enum ResponseAction<Model: Sendable>: Sendable {
    /// Hand this result on: to the next handler, or to the caller after the
    /// last one (the result received, or a replacement).
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
/// call again.
///
/// Handlers run in order after decoding, as a chain: each receives the result
/// the one before it delivered, so one may turn a failure into a fallback
/// model and the next still sees (and may log or change) that fallback. The
/// first handler that asks to run the call again (``ResponseAction/retry(after:)``
/// or ``ResponseAction/resend(_:after:)``) ends the chain: the handlers after
/// it do not run, and the call runs again from endpoint mapping. When every
/// handler delivers, the last delivered result goes to the caller.
///
/// ### Replays
/// A replay is a new pass through the whole pipeline (plugins' `process`
/// included, with ``CallContext/replay`` counting up), but the same call: it
/// shares the call's attempt count and retry deadline, so its first attempt
/// is numbered after the last one before it, the retry policy counts every
/// attempt of the call against its limit, and no attempt starts after the
/// deadline. Replays are bounded by ``APIClient/Configuration/maxReplays``.
///
/// A handler that throws ends the call with ``CourierError/Code/interceptor``
/// at ``CourierError/Stage/responseInterception``, naming the handler in
/// ``CourierError/thrownBy``: by the name given here, or by the file and line
/// where the closure was written.
public struct ResponseHandler<Model: Sendable>: Sendable, NamedComponent {
    let body: @Sendable (Result<Model, CourierError>, ResponseContext) async throws -> ResponseAction<Model>
    let componentName: ComponentName

    /// Makes a response handler of a closure; ``Endpoint/onResponse(name:fileID:line:_:)``
    /// appends one to an endpoint.
    /// - Parameters:
    ///   - name: A name for errors and logs; by default the place the closure was written.
    ///   - fileID: Where the closure was written, for the default name; leave it out.
    ///   - line: The line the closure was written on; leave it out.
    ///   - body: Decides what happens to the result.
    public init(
        name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line,
        _ body:
            @escaping @Sendable (Result<Model, CourierError>, ResponseContext) async throws -> ResponseAction<
                Model
            >
    ) {
        self.body = body
        self.componentName = ComponentName(name, kind: "ResponseHandler", fileID: fileID, line: line)
    }
}
