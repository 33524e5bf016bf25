public import Dispatch
import Synchronization

extension APIClient {
    /// Sends the endpoint and calls `completion` exactly once with the model
    /// or the error, for callers that are not `async`.
    ///
    /// - Parameters:
    ///   - endpoint: The API to call.
    ///   - queue: Where `completion` runs; `nil` runs it on the task that made the call.
    ///   - plugins: Plugins for this call only, after the client's and the endpoint's.
    ///   - progress: Upload and download progress, from any thread.
    ///   - completion: Called once, also after cancellation (with ``CourierError/Code/cancelled``),
    ///     whether by the returned handle, by ``cancelAll()`` or by the client's release.
    /// - Returns: A handle that cancels the call. The call does not keep the
    ///   client: release the client and the call ends (``CourierError/Code/cancelled``).
    @discardableResult
    public func send<Response>(
        _ endpoint: Endpoint<Response>,
        queue: DispatchQueue? = nil,
        plugins: [any Plugin] = [],
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Response, CourierError>) -> Void
    ) -> CancellableCall {
        // The services, not the client: the call must not keep its client alive.
        let task = Task { [runner] in
            CallRunner.deliver(
                await runner.run(endpoint, plugins: plugins, progress: progress), on: queue, to: completion)
        }
        return CancellableCall(task: task)
    }
}

extension APIClient {
    /// What runs this client's calls without keeping the client: for a call
    /// that may outlive it (a completion handler's, a prepared call's), which
    /// ends with `.cancelled` once the client is released.
    package var runner: CallRunner { CallRunner(services: services) }
}

/// Runs calls on a client's services (``APIClient/runner``).
package struct CallRunner: Sendable {
    let services: ClientServices

    /// Runs `endpoint` to its end.
    /// - Parameters:
    ///   - endpoint: The API to call.
    ///   - plugins: The call's own plugins.
    ///   - progress: Upload and download progress, from any thread.
    ///   - control: What pauses the call's transfer, for a caller that can.
    /// - Returns: The model, or the error the call ended with.
    package func run<Response>(
        _ endpoint: Endpoint<Response>, plugins: [any Plugin],
        progress: (@Sendable (TransferProgress) -> Void)?, control: TransferControl? = nil
    ) async -> Result<Response, CourierError> {
        await services.run(
            endpoint, plugins: plugins, progress: progress, role: .lastDelivery, stored: nil, control: control
        )
        .map(\.model)
    }

    /// A control for pausing a call's transfer through this client's transport.
    package func transferControl() -> TransferControl {
        TransferControl(for: services.configuration.transport)
    }

    /// Hands a completion-handler call's result to `completion`: on `queue`,
    /// or on the calling task when there is none.
    package static func deliver<Outcome: Sendable>(
        _ result: Outcome, on queue: DispatchQueue?, to completion: @escaping @Sendable (Outcome) -> Void
    ) {
        if let queue {
            queue.async { completion(result) }
        } else {
            completion(result)
        }
    }
}

/// A call started with a completion handler; cancel it at any time.
public final class CancellableCall: Sendable {
    private let task: Task<Void, Never>

    package init(task: Task<Void, Never>) { self.task = task }

    /// Cancels the call; its completion still runs once, with ``CourierError/Code/cancelled``
    /// unless the call had already finished.
    public func cancel() { task.cancel() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }

    /// Waits until the call, completion included, has finished.
    public func wait() async { await task.value }
}
