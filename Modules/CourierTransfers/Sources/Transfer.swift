public import CourierCore

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
public struct Transfer<Response: Sendable>: Sendable {
    /// Upload and download progress, in order, the newest kept when the reader lags.
    public let progress: AsyncStream<TransferProgress>
    private let call: Task<Result<Response, CourierError>, Never>

    init(progress: AsyncStream<TransferProgress>, call: Task<Result<Response, CourierError>, Never>) {
        self.progress = progress
        self.call = call
    }

    /// The call's result: its model, or the ``/CourierCore/CourierError`` it failed with.
    public var value: Response {
        get async throws(CourierError) { try await call.value.get() }
    }

    /// Cancels the call (its error is ``/CourierCore/CourierError/Code/cancelled``).
    public func cancel() { call.cancel() }
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
        let call = Task { () -> Result<Response, CourierError> in
            defer { events.finish() }
            do throws(CourierError) {
                return .success(try await self.send(endpoint, plugins: plugins) { events.yield($0) })
            } catch {
                return .failure(error)
            }
        }
        return Transfer(progress: progress, call: call)
    }
}
