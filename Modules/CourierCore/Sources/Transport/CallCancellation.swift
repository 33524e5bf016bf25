import Synchronization

/// Cancellation of one call that comes from outside its task:
/// ``APIClient/cancelAll()``, and another call's `.cancelOthers` policy in
/// a concurrency group (which gives a reason, ``reason``).
///
/// A call runs in its caller's task, so cancelling it from elsewhere cannot
/// cancel that task (which would also end the caller's other work, for
/// good). Instead, the pipeline stops at its next step, and the transport
/// stops the exchange in progress when it is told through
/// ``TransportOptions/cancellation``. A transport honours it most simply by
/// wrapping its wait in ``TransportOptions/withCancellationHandler(_:onCancel:)``,
/// which covers task cancellation too:
///
/// ```swift
/// try await options.withCancellationHandler {
///     try await withCheckedThrowingContinuation { continuation in start(request, continuation) }
/// } onCancel: {
///     stop(request)   // called at most once, from any thread
/// }
/// ```
///
/// A transport that ignores it still ends every cancelled call with
/// ``CourierError/Code/cancelled``: the pipeline discards what the transport
/// returns after the cancellation. It only cannot stop the transfer sooner.
public final class CallCancellation: Sendable {
    /// A handler added with ``onCancel(_:)``; remove it once the operation it
    /// guards has ended.
    public struct Registration: Sendable {
        let owner: CallCancellation?
        let id: UInt64

        /// Removes the handler; it will not run. Safe to call after it ran.
        public func remove() { owner?.remove(id) }
    }

    private struct State {
        var cancelled = false
        var reason: CourierError?
        var nextID: UInt64 = 0
        var handlers: [(id: UInt64, run: @Sendable () -> Void)] = []
    }

    private let state = Locked(State())

    /// Creates a cancellation that has not fired.
    public init() {}

    /// Whether the call was cancelled.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Why the call was cancelled, when whoever cancelled it said so (a
    /// concurrency policy's ``CourierError/Code/cancelledByPolicy``); the
    /// call ends with this error instead of ``CourierError/Code/cancelled``.
    public var reason: CourierError? { state.withLock { $0.reason } }

    /// Runs `handler` once when the call is cancelled — at once, on this
    /// thread, if it already was.
    /// - Returns: A registration to remove the handler with.
    @discardableResult
    public func onCancel(_ handler: @escaping @Sendable () -> Void) -> Registration {
        let id: UInt64? = state.withLock { state in
            guard !state.cancelled else { return nil }
            state.nextID += 1
            state.handlers.append((state.nextID, handler))
            return state.nextID
        }
        guard let id else {
            handler()
            return Registration(owner: nil, id: 0)
        }
        return Registration(owner: self, id: id)
    }

    /// Cancels the call: runs every handler once, outside the lock.
    /// - Parameter reason: The error the call ends with instead of
    ///   ``CourierError/Code/cancelled``; the first cancellation's reason stays.
    package func cancel(because reason: CourierError? = nil) {
        let handlers = state.withLock { state in
            guard !state.cancelled else { return [(id: UInt64, run: @Sendable () -> Void)]() }
            state.cancelled = true
            state.reason = reason
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler.run() }
    }

    private func remove(_ id: UInt64) {
        state.withLock { state in state.handlers.removeAll { $0.id == id } }
    }
}

extension TransportOptions {
    /// Throws `CancellationError` when the calling task, or the call from
    /// outside (``cancellation``), is already cancelled: the check a
    /// transport makes before it starts an exchange, so that nothing is sent
    /// for a call that has ended.
    /// - Throws: `CancellationError`.
    @_spi(Transport) public func checkCancellation() throws {
        try Task.checkCancellation()
        if cancellation?.isCancelled == true { throw CancellationError() }
    }

    /// Runs `operation`; calls `onCancel` once, from any thread, when the
    /// calling task is cancelled or the call is cancelled from outside
    /// (``cancellation``) — whichever comes first — while it runs.
    /// - Parameters:
    ///   - operation: The transport's wait for its exchange.
    ///   - onCancel: Stops the exchange; `operation` should then end promptly.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    @_spi(Transport) public func withCancellationHandler<T: Sendable>(
        _ operation: () async throws -> T, onCancel: @escaping @Sendable () -> Void
    ) async throws -> T {
        guard let cancellation else {
            return try await withTaskCancellationHandler(operation: operation, onCancel: onCancel)
        }
        let once = Locked(false)
        let fire: @Sendable () -> Void = {
            let first = once.withLock { fired in
                defer { fired = true }
                return !fired
            }
            if first { onCancel() }
        }
        let registration = cancellation.onCancel(fire)
        defer { registration.remove() }
        return try await withTaskCancellationHandler(operation: operation, onCancel: fire)
    }

    /// Sleeps on `clock`, ending early with `CancellationError` when the task
    /// or the call (``cancellation``) is cancelled: for transports that wait,
    /// such as test doubles with latency.
    @_spi(Transport) public func sleep(for duration: Duration, on clock: any CourierClock) async throws {
        try await CallCancellation.sleep(for: duration, on: clock, cancellation: cancellation)
    }
}

extension CallCancellation {
    /// Sleeps on `clock` until `duration` has passed, the task is cancelled
    /// or `cancellation` fires; the last two throw `CancellationError`.
    package static func sleep(
        for duration: Duration, on clock: any CourierClock, cancellation: CallCancellation?
    )
        async throws
    {
        guard let cancellation else { return try await clock.sleep(for: duration) }
        if cancellation.isCancelled { throw CancellationError() }
        // The clock's sleep ends only with its task: give it one of its own,
        // so that the call's cancellation can end it too.
        let sleeper = Task { try await clock.sleep(for: duration) }
        let registration = cancellation.onCancel { sleeper.cancel() }
        defer { registration.remove() }
        try await withTaskCancellationHandler {
            try await sleeper.value
        } onCancel: {
            sleeper.cancel()
        }
    }
}
