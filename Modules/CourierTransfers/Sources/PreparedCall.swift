@_spi(Locking) public import CourierCore
public import Dispatch
import Synchronization

/// A call made but not started (CSAPIService's `APIRequestTask`): nothing
/// is sent until ``resume()``; ``cancel()`` ends it before or after it
/// started; its completion runs exactly once either way.
///
/// A prepared call dropped without ``resume()`` is cancelled (its completion
/// runs, with `.cancelled`), rather than waiting forever.
///
/// Like every completion-handler call it does not keep its client: a client
/// released before or while the call runs ends it with
/// ``/CourierCore/CourierError/Code/cancelled``.
///
/// ```swift
/// let upload = client.prepare(.upload(report)) { result in … }
/// // …later, once the user confirmed:
/// upload.resume()
/// ```
public final class PreparedCall: Sendable {
    private let task: Task<Void, Never>
    private let start: AsyncStream<Void>.Continuation

    init(task: Task<Void, Never>, start: AsyncStream<Void>.Continuation) {
        self.task = task
        self.start = start
    }

    deinit { start.finish() }

    /// Starts the call; later calls do nothing, and neither does one after ``cancel()``.
    public func resume() {
        start.yield()
        start.finish()
    }

    /// Ends the call: before it started, nothing is sent and the completion
    /// gets ``/CourierCore/CourierError/Code/cancelled``; after, as a
    /// cancelled task's call ends.
    public func cancel() {
        task.cancel()
        start.finish()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }

    /// Waits until the call has ended and its completion has run (it never
    /// ends before ``resume()`` or ``cancel()``).
    public func wait() async { await task.value }
}

extension APIClient {
    /// Makes a call of `endpoint` without starting it: ``PreparedCall/resume()``
    /// sends it, and `completion` runs exactly once with the model or the error.
    ///
    /// - Parameters:
    ///   - endpoint: The API to call.
    ///   - queue: Where `completion` runs; `nil` runs it on the task that made the call.
    ///   - plugins: Plugins for this call only, after the client's and the endpoint's.
    ///   - progress: Upload and download progress, from any thread.
    ///   - completion: Called once: with the result, or with
    ///     ``/CourierCore/CourierError/Code/cancelled`` when the call was cancelled
    ///     (before or after it started) or its client was released.
    /// - Returns: The call, not started.
    public func prepare<Response>(
        _ endpoint: Endpoint<Response>,
        queue: DispatchQueue? = nil,
        plugins: [any Plugin] = [],
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Response, CourierError>) -> Void
    ) -> PreparedCall {
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        // The runner, not the client: a prepared call must not keep its client alive.
        let task = Task { [runner] in
            var resumed = false
            for await _ in started {
                resumed = true
                break
            }
            let result: Result<Response, CourierError>
            if resumed, !Task.isCancelled {
                result = await runner.run(endpoint, plugins: plugins, progress: progress)
            } else {
                result = .failure(
                    CourierError(
                        .cancelled, stage: .build, message: "the call was cancelled before it started"))
            }
            CallRunner.deliver(result, on: queue, to: completion)
        }
        return PreparedCall(task: task, start: start)
    }
}
