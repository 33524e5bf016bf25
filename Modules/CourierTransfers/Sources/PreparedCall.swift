@_spi(Locking) @_spi(Transport) public import CourierCore
public import Dispatch
import Synchronization

/// A call made but not started (CSAPIService's `APIRequestTask`): nothing
/// is sent until ``resume()``; ``cancel()`` ends it before or after it
/// started; its completion runs exactly once either way. Like a
/// `URLSessionTask`, it can ``pause()`` in flight, and ``resume()`` then
/// lets it go on.
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
    private let control: TransferControl
    /// Whether ``resume()`` has started the call.
    private let started = Atomic(false)

    init(task: Task<Void, Never>, start: AsyncStream<Void>.Continuation, control: TransferControl) {
        self.task = task
        self.start = start
        self.control = control
    }

    deinit { start.finish() }

    /// Starts the call, or lets a paused one go on (``pause()``); does
    /// nothing after ``cancel()``.
    public func resume() {
        // A pause before the start is undone first, so that one the call's
        // own progress handler makes once it runs is never undone by this.
        control.resume()
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        start.yield()
        start.finish()
    }

    /// Holds the call's transfer where it is until ``resume()``, as
    /// ``Transfer/pause()`` does (``resume()`` both starts and un-pauses, so
    /// a pause before the call started is undone when it starts).
    /// - Throws: `CourierError.Code.pauseUnsupported` when the
    ///   client's transport cannot pause without losing bytes.
    public func pause() throws(CourierError) { try control.pauseOrThrow() }

    /// Whether the call's transfer is paused.
    public var isPaused: Bool { control.isPaused }

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
        let control = runner.transferControl()
        // The runner, not the client: a prepared call must not keep its client alive.
        let task = Task { [runner] in
            var resumed = false
            for await _ in started {
                resumed = true
                break
            }
            let result: Result<Response, CourierError>
            if resumed, !Task.isCancelled {
                result = await runner.run(endpoint, plugins: plugins, progress: progress, control: control)
            } else {
                result = .failure(
                    CourierError(
                        .cancelled, stage: .build, message: "the call was cancelled before it started"))
            }
            CallRunner.deliver(result, on: queue, to: completion)
        }
        return PreparedCall(task: task, start: start, control: control)
    }
}
