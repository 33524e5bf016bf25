import Synchronization

/// Sends endpoints and returns their models: the entry point of Courier.
///
/// A client is not generic over one endpoint type: any ``Endpoint`` goes
/// through the same pipeline — mapping, parameter interceptors, encoding,
/// per-call interceptors around the response cache around the attempt loop
/// (per-attempt interceptors, plugins, the transport, validation, retries),
/// then validation, plugins' `process`, decoding and response handlers.
/// <doc:WhatACallGoesThrough> lists its stages in order.
///
/// Every call ends exactly once: with the model, or with one ``CourierError``.
/// Attempts and the retry deadline belong to the call: every `next` a
/// per-call interceptor makes and every replay continue the same count.
///
/// ```swift
/// let client = APIClient(transport: CurlTransport.shared, decoder: .codable,
///                        retryPolicy: .standard)
/// let user = try await client.send(.user(id: 7))
/// ```
public final class APIClient: Sendable {
    /// What the client's calls share; the client is its public face.
    let services: ClientServices
    /// Whether this is the face the app made (not one lent to a credential
    /// provider's refresh): its release ends the calls.
    private let ownsServices: Bool

    /// The transport, decoder, interceptors, plugins and defaults.
    public var configuration: Configuration { services.configuration }

    /// Creates a client from a configuration.
    public init(configuration: Configuration, environment: ServerEnvironment = .production) {
        self.services = ClientServices(configuration: configuration, environment: environment)
        self.ownsServices = true
    }

    /// A face over the services of a client that exists: for the client a
    /// credential provider refreshes through.
    init(services: ClientServices) {
        self.services = services
        self.ownsServices = false
    }

    /// The client's calls end with it (XZKit's manager cancels its tasks when
    /// it goes): a call still running, or still starting — one made with a
    /// completion handler, which does not keep the client — fails with
    /// ``CourierError/Code/cancelled``, "the client was released", as
    /// ``cancelAll()`` would end it. An `async` call keeps its client until it
    /// returns: cancel its task instead.
    deinit {
        guard ownsServices else { return }
        services.release(
            because: CourierError(
                .cancelled, stage: .transport, message: "the client was released; its calls end with it"))
    }

    /// Creates a client; only the transport is required. The labels are
    /// those of ``Configuration``'s, which has every other setting.
    public convenience init(
        transport: any Transport,
        decoder: (any ResponseDecoder)? = nil,
        environment: ServerEnvironment = .production,
        callInterceptors: [any Interceptor] = [],
        attemptInterceptors: [any Interceptor] = [],
        parameterInterceptors: [ParameterInterceptor] = [],
        plugins: [any Plugin] = [],
        retryPolicy: RetryPolicy = .never,
        clock: any CourierClock = SystemClock()
    ) {
        self.init(
            configuration: Configuration(
                transport: transport, decoder: decoder, callInterceptors: callInterceptors,
                attemptInterceptors: attemptInterceptors, parameterInterceptors: parameterInterceptors,
                plugins: plugins, retryPolicy: retryPolicy, clock: clock),
            environment: environment)
    }

    /// Which base URL every node uses; switch it at any time, calls that have
    /// already started keep theirs.
    public var environment: ServerEnvironment {
        get { services.environment }
        set { services.environment = newValue }
    }

    /// Sends the endpoint and returns its model.
    /// - Parameters:
    ///   - endpoint: The API to call.
    ///   - plugins: Plugins for this call only; their hooks run after the
    ///     client's and the endpoint's.
    ///   - progress: Upload and download progress, from any thread.
    /// - Returns: The decoded model.
    /// - Throws: ``CourierError``; ``CourierError/Code/cancelled`` when the task
    ///   is cancelled or ``cancelAll()`` ends the call.
    public func send<Response>(
        _ endpoint: Endpoint<Response>, plugins: [any Plugin] = [],
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(CourierError) -> Response {
        try await response(endpoint, plugins: plugins, progress: progress).model
    }

    /// Sends the endpoint and returns its model with the raw response, the
    /// metrics and the attempt count.
    /// - Parameters:
    ///   - endpoint: The API to call.
    ///   - plugins: Plugins for this call only, after the client's and the endpoint's.
    ///   - progress: Upload and download progress, from any thread.
    /// - Returns: The model, the raw response, the metrics and the attempt count.
    /// - Throws: ``CourierError``.
    public func response<Response>(
        _ endpoint: Endpoint<Response>, plugins: [any Plugin] = [],
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(CourierError) -> Reply<Response> {
        try await services.run(
            endpoint, plugins: plugins, progress: progress, role: .lastDelivery, stored: nil
        )
        .get()
    }

    /// Runs one call: `response(_:plugins:progress:)` with what a response
    /// cache needs to know — who runs the call, and where deliveries made
    /// before its own result go (`CourierCache`'s `deliveries`).
    package func run<Response>(
        _ endpoint: Endpoint<Response>, plugins: [any Plugin] = [],
        progress: (@Sendable (TransferProgress) -> Void)? = nil, role: CacheRole,
        stored: EarlyDeliverySink<Response>? = nil
    ) async -> Result<Reply<Response>, CourierError> {
        await services.run(endpoint, plugins: plugins, progress: progress, role: role, stored: stored)
    }

    /// Ends every call this client is running with ``CourierError/Code/cancelled``,
    /// exactly once each, as if each caller's task had been cancelled: the
    /// transfer in progress stops (through ``TransportOptions/cancellation``;
    /// CourierCurl, CourierURLSession and the test doubles honour it), a
    /// retry or replay wait ends, no further attempt is made, and completion
    /// handlers run once. An interceptor or handler of yours that is running
    /// finishes its step first. Calls started afterwards are not affected; the
    /// callers' own tasks are not cancelled.
    public func cancelAll() { services.cancelAll() }

    /// Ends this client's running calls whose endpoint carries `tag`
    /// (``Endpoint/tagged(_:)``), whatever concurrency group they are in,
    /// as ``cancelAll()`` ends every call: each fails once with
    /// ``CourierError/Code/cancelled``, its transfer stops, no retry follows.
    /// Calls started afterwards are not affected.
    /// - Parameter tag: The tag the calls to end carry.
    public func cancelAll(tagged tag: String) { services.cancelAll(tagged: tag) }

    /// How many calls this client is running now.
    public var runningCalls: Int { services.runningCalls }

    /// How many of them wait for an exchange they share with identical
    /// calls (``Coalescing``), the one that sent it included.
    public var coalescedCalls: Int { services.inFlight.callersInFlight }
}

/// A model with the response it came from.
public struct Reply<Model: Sendable>: Sendable {
    /// The decoded model.
    public var model: Model
    /// Status, headers, body and metrics of the response the model came from;
    /// `nil` only when a response handler made up a model without one.
    public var response: RawResponse?
    /// How many requests the call sent: every attempt, across retries, every
    /// `next` a per-call interceptor made and every replay; 0 when an
    /// interceptor answered without sending.
    public var attempts: Int
    /// Requests the transport sent again by itself within those attempts
    /// (``TransportMetrics/resends``, as far as transports report it): the
    /// server saw `attempts + transportResends` requests.
    public var transportResends: Int = 0
}
