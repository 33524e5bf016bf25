@_spi(Transport) public import CourierCore

/// A call whose progress arrives as an `AsyncSequence`, read on the caller's
/// own actor: a progress bar on the main actor needs no lock and no
/// `@Sendable` closure.
///
/// ```swift
/// @MainActor func download() async throws {
///     let transfer = client.transfer(.download(.get("files/report.pdf"), on: api, to: destination))
///     for await progress in transfer.progress {
///         bar.fraction = progress.fraction ?? 0   // main actor, in order
///     }
///     let file = try await transfer.value
/// }
/// ```
///
/// The call starts at once and runs whether or not anyone reads the
/// progress. The sequence keeps the newest event when the reader is slower
/// than the network (a progress bar wants the latest, not every one), and
/// ends when the call does — after its last event — so `for await` ends
/// and ``value`` is then ready.
///
/// A transfer in flight can be paused and resumed (``pause()``,
/// ``resume()``) on CurlTransport and AsyncHTTPClientTransport, and on
/// URLSession on Apple platforms, without losing a byte.
public struct Transfer<Response: Sendable>: Sendable {
    /// Upload and download progress, in order, the newest kept when the reader lags.
    public let progress: AsyncStream<TransferProgress>
    private let call: Task<Result<Response, CourierError>, Never>
    private let control: TransferControl

    init(
        progress: AsyncStream<TransferProgress>, call: Task<Result<Response, CourierError>, Never>,
        control: TransferControl
    ) {
        self.progress = progress
        self.call = call
        self.control = control
    }

    /// The call's result: its model, or the ``/CourierCore/CourierError`` it failed with.
    public var value: Response {
        get async throws(CourierError) { try await call.value.get() }
    }

    /// Cancels the call (its error is ``/CourierCore/CourierError/Code/cancelled``).
    public func cancel() { call.cancel() }

    /// Holds the transfer where it is: no byte moves either way until
    /// ``resume()``, the connection and what arrived are kept, and the idle
    /// timeout stands still (the total timeout, where one is set, does
    /// not). A pause between attempts holds the next attempt from its start.
    /// - Throws: `CourierError.Code.pauseUnsupported` when the
    ///   client's transport cannot pause without losing bytes
    ///   (FoundationNetworking's URLSession on Linux); the call runs on.
    public func pause() throws(CourierError) { try control.pauseOrThrow() }

    /// Lets a paused transfer go on; does nothing when it is not paused.
    public func resume() { control.resume() }

    /// Whether the transfer is paused.
    public var isPaused: Bool { control.isPaused }
}

extension APIClient {
    /// Starts a call and returns its progress as an `AsyncSequence` and its
    /// result: see ``Transfer``. The same call as
    /// ``/CourierCore/APIClient/send(_:plugins:progress:)``, for callers that want progress on their
    /// own actor instead of in a `@Sendable` closure.
    /// - Parameters:
    ///   - endpoint: What to call.
    ///   - plugins: Plugins for this call alone, after the client's and the endpoint's.
    /// - Returns: The running call.
    public func transfer<Response>(_ endpoint: Endpoint<Response>, plugins: [any Plugin] = [])
        -> Transfer<Response>
    {
        let (progress, events) = AsyncStream.makeStream(
            of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        let runner = self.runner
        let control = runner.transferControl()
        let call = Task { [self] () -> Result<Response, CourierError> in
            defer { events.finish() }
            // The task keeps the client until the call ends, as an `async` call's frame does.
            defer { withExtendedLifetime(self) {} }
            return await runner.run(
                endpoint, plugins: plugins, progress: { events.yield($0) }, control: control)
        }
        return Transfer(progress: progress, call: call, control: control)
    }
}
