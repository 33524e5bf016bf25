/// What every call of one client shares, made once when the client is made:
/// the configuration and the settings resolved from it, the exchanges
/// coalesced calls share, the response cache, and the calls running now.
///
/// A call reaches these through its ``CallInputs``, never through the
/// ``APIClient`` that started it: the client is the public face over one
/// `ClientServices`, and a call the pipeline starts by itself (a response
/// cache's background refresh) starts here.
final class ClientServices: Sendable {
    /// The transport, decoder, interceptors, plugins and defaults.
    let configuration: APIClient.Configuration
    /// The settings of endpoints that override none of the client's.
    let defaultSettings: CallSettings
    /// The exchanges coalesced calls share.
    let inFlight = InFlightCalls()
    private let state: Locked<State>

    private struct State {
        var environment: ServerEnvironment
        var nextCallID: UInt64 = 1
        /// The calls running now, for ``cancelAll()``.
        var running = RunningCalls()
        /// Set when the client was released: why every call, running or
        /// still to start (a completion handler's task), ends.
        var released: CourierError?
    }

    init(configuration: APIClient.Configuration, environment: ServerEnvironment) {
        self.configuration = configuration
        self.defaultSettings = CallSettings(configuration)
        self.state = Locked(State(environment: environment))
    }

    /// Which base URL calls that start from now on use.
    var environment: ServerEnvironment {
        get { state.withLock { $0.environment } }
        set { state.withLock { $0.environment = newValue } }
    }

    /// Runs one call to its end; every call of the client starts here.
    /// - Parameters:
    ///   - endpoint: The call's endpoint.
    ///   - plugins: The call's own plugins.
    ///   - progress: The caller's progress handler.
    ///   - role: Who runs the call, for a response cache taking part in it.
    ///   - stored: For a caller that takes every delivery: where deliveries
    ///     before the call's own result go (a stored response delivered first).
    ///   - control: What pauses the call's transfer, for a caller that can.
    /// - Returns: The reply, or the error the call ended with.
    @inline(__always)
    nonisolated(nonsending) func run<Response>(
        _ endpoint: Endpoint<Response>, plugins: [any Plugin],
        progress: (@Sendable (TransferProgress) -> Void)?,
        role: CacheRole, stored: EarlyDeliverySink<Response>?, control: TransferControl? = nil
    ) async -> Result<Reply<Response>, CourierError> {
        let (call, slot) = start(endpoint, plugins, progress, role: role, control: control)
        defer { finishRunning(slot) }
        return await CallPipeline().run(endpoint, call, stored: stored)
    }

    /// A call's first state, registered as running (for ``cancelAll()``).
    /// - Parameters:
    ///   - endpoint: The call's endpoint.
    ///   - plugins: The call's own plugins.
    ///   - progress: The caller's progress handler.
    ///   - role: Who runs the call, for a response cache taking part in it.
    ///   - stream: For a streaming call (CourierStreamFormats' `APIClient.stream(_:timeouts:plugins:)`),
    ///     what cancels the bodies its attempts open and the call does not return.
    ///   - control: What pauses the call's transfer, for a caller that can.
    /// - Returns: The state, and the slot to give ``finishRunning(_:)`` when the call ends.
    @inline(__always)
    func start<Response>(
        _ endpoint: Endpoint<Response>, _ plugins: [any Plugin],
        _ progress: (@Sendable (TransferProgress) -> Void)?, role: CacheRole, stream: StreamSlot? = nil,
        control: TransferControl? = nil
    ) -> (CallState, slot: Int) {
        let cancellation = CallCancellation()
        let (id, slot, environment, released) = state.withLock { state in
            let id = state.nextCallID
            state.nextCallID &+= 1
            let slot = state.running.insert(cancellation, tags: endpoint.spec.tags)
            return (id, slot, state.environment, state.released)
        }
        // A call whose task began after its client was released ends at once.
        if let released { cancellation.cancel(because: released) }
        let inputs = CallInputs(
            id: id, services: self, environment: environment, plugins: plugins, progress: progress,
            cancellation: cancellation, transferControl: control, cacheRole: role, stream: stream)
        let call = CallState(
            id: id, plan: PassPlan(spec: endpoint.spec, call: inputs), cancellation: cancellation)
        return (call, slot)
    }

    /// Forgets a call that ended (``start(_:_:_:role:stream:)``'s slot).
    func finishRunning(_ slot: Int) {
        state.withLock { $0.running.remove(slot) }
    }

    /// Ends every running call, as ``APIClient/cancelAll()`` says.
    func cancelAll() {
        let running = state.withLock { $0.running.all }
        for call in running { call.cancel() }
    }

    /// The client was released: every running call ends with `reason`, and
    /// so does every call that starts later.
    func release(because reason: CourierError) {
        let running = state.withLock { state in
            state.released = reason
            return state.running.all
        }
        for call in running { call.cancel(because: reason) }
    }

    /// Ends the running calls whose endpoint carries `tag`, as
    /// ``APIClient/cancelAll(tagged:)`` says.
    func cancelAll(tagged tag: String) {
        let running = state.withLock { $0.running.tagged(tag) }
        let reason = CourierError(
            .cancelled, stage: .transport, message: "cancelled by cancelAll(tagged: \"\(tag)\")")
        for call in running { call.cancel(because: reason) }
    }

    /// How many calls are running now.
    var runningCalls: Int { state.withLock { $0.running.count } }
}
