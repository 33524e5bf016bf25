import Synchronization

/// Sends endpoints and returns their models: the entry point of Courier.
///
/// A client is not generic over one endpoint type: any ``Endpoint`` goes
/// through the same pipeline, which is, in order:
/// 1. endpoint mapping (``Configuration/endpointMapping``);
/// 2. parameter interceptors (client's, then the endpoint's), then encoding;
/// 3. per-call interceptors (client's, then the endpoint's) around
/// 4. the attempt loop: per-attempt interceptors → plugins `prepare`,
///    `willSend` → transport → plugins `didReceive` → status validation →
///    envelope validation → retry decision (back to 4 after the delay);
/// 5. plugins `process`, once;
/// 6. decoding into the model;
/// 7. response handlers (may replace the result or run the call again from 1).
///
/// Every call ends exactly once: with the model, or with one ``CourierError``.
///
/// ```swift
/// let client = APIClient(transport: CurlTransport.shared, decoder: .codable,
///                        retryPolicy: .standard)
/// let user = try await client.send(.user(id: 7))
/// ```
public final class APIClient: Sendable {
    /// The transport, decoder, interceptors, plugins and defaults.
    public let configuration: Configuration
    private let state: Mutex<State>

    private struct State {
        var environment: ServerEnvironment
        var nextCallID: UInt64 = 1
    }

    /// Creates a client from a configuration.
    public init(configuration: Configuration, environment: ServerEnvironment = .production) {
        self.configuration = configuration
        self.state = Mutex(State(environment: environment))
    }

    /// Creates a client; only the transport is required.
    public convenience init(
        transport: any Transport,
        decoder: (any ResponseDecoder)? = nil,
        environment: ServerEnvironment = .production,
        interceptors: [any Interceptor] = [],
        attemptInterceptors: [any Interceptor] = [],
        parameterInterceptors: [ParameterInterceptor] = [],
        plugins: [any Plugin] = [],
        retryPolicy: RetryPolicy = .never,
        clock: any CourierClock = SystemClock()
    ) {
        self.init(
            configuration: Configuration(
                transport: transport, decoder: decoder, callInterceptors: interceptors,
                attemptInterceptors: attemptInterceptors, parameterInterceptors: parameterInterceptors,
                plugins: plugins, retryPolicy: retryPolicy, clock: clock),
            environment: environment)
    }

    /// Which base URL every node uses; switch it at any time, calls that have
    /// already built their request keep theirs.
    public var environment: ServerEnvironment {
        get { state.withLock { $0.environment } }
        set { state.withLock { $0.environment = newValue } }
    }

    /// Sends the endpoint and returns its model.
    /// - Parameters:
    ///   - endpoint: The API to call.
    ///   - progress: Upload and download progress, from any thread.
    /// - Returns: The decoded model.
    /// - Throws: ``CourierError``; ``CourierError/Code/cancelled`` when the task is cancelled.
    public func send<Response>(
        _ endpoint: Endpoint<Response>, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(CourierError) -> Response {
        try await response(endpoint, progress: progress).model
    }

    /// Sends the endpoint and returns its model with the raw response, the
    /// metrics and the attempt count.
    /// - Throws: ``CourierError``.
    public func response<Response>(
        _ endpoint: Endpoint<Response>, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(CourierError) -> Reply<Response> {
        let callID = state.withLock { state in
            defer { state.nextCallID &+= 1 }
            return state.nextCallID
        }
        return try await CallRunner(client: self, callID: callID, progress: progress).run(endpoint).get()
    }
}

/// A model with the response it came from.
public struct Reply<Model: Sendable>: Sendable {
    /// The decoded model.
    public var model: Model
    /// Status, headers, body and metrics of the response the model came from;
    /// `nil` only when a response handler made up a model without one.
    public var response: RawResponse?
    /// How many attempts the last run of the call took.
    public var attempts: Int
}
