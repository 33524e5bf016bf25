@_spi(Locking) @_spi(Transport) public import CourierCore
import HTTPTypes

/// A streamed call's body: chunks of bytes as they arrive, read once.
///
/// Reading slowly pauses the transfer instead of buffering without bound
/// (about a megabyte is held ahead of the reader); cancelling the reading
/// task, ``cancel()``, ``/CourierCore/APIClient/cancelAll()``, or dropping the body unread
/// stops the transfer and closes its connection. Every error is a
/// ``/CourierCore/CourierError``: a drop mid-body (``/CourierCore/CourierError/Code/transport``), a
/// deadline of ``StreamTimeouts`` (``/CourierCore/CourierError/Code/timedOut``),
/// cancellation (``/CourierCore/CourierError/Code/cancelled``).
///
/// `.lines`, `.serverSentEvents` and `.decoded(_:using:badLines:)` read it
/// as text, events or NDJSON models.
public struct StreamedBody: AsyncSequence, Sendable {
    /// A chunk of bytes.
    public typealias Element = [UInt8]
    /// What ends the body early.
    public typealias Failure = CourierError

    let session: StreamSession

    /// Reads the chunks in order.
    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        /// A chunk of bytes.
        public typealias Element = [UInt8]
        /// What ends the body early.
        public typealias Failure = CourierError

        let session: StreamSession

        /// The next chunk, or nil at the end of the body.
        public mutating func next() async throws(CourierError) -> [UInt8]? { try await session.next() }

        /// The next chunk, or nil at the end of the body.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError)
            -> [UInt8]?
        {
            try await session.next()
        }
    }

    /// An iterator over the chunks.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(session: session) }

    /// Stops the transfer; the body ends with ``/CourierCore/CourierError/Code/cancelled``.
    public func cancel() { session.cancel() }

    /// What the body carried so far.
    public var summary: StreamSummary { session.summary }

    /// The most bytes held ahead of the reader at once so far: about a
    /// megabyte at most, however slow the reader (CourierCore's `BodyStreamBuffer`).
    public var peakBufferedBytes: Int { session.body.peakBufferedBytes }

    /// Whether the transfer is held back now, waiting for the reader to catch up.
    public var isHoldingBack: Bool { session.body.isHoldingBack }

    /// Returns once the transfer is held back for the reader, or the body
    /// ended: for tests and diagnostics that must see backpressure happen.
    public func holdingBack() async { await session.body.holdingBack() }
}

/// One streamed body's reading: the deadlines, the counts, and the call's
/// end — plugins' `process` and the client's bookkeeping — run exactly once,
/// when the body ends, fails, is cancelled or is dropped unread.
final class StreamSession: Sendable {
    /// How a stream ended, for whoever reports it.
    typealias Ending = @Sendable (StreamSummary, CourierError?) async -> Void

    private struct State {
        var summary = StreamSummary()
        var ended = false
        /// What reading after the end returns.
        var ending: CourierError?
        var totalTimer: Task<Void, Never>?
        var registration: CallCancellation.Registration?
    }

    let body: ResponseBodyStream
    private let request: HTTPRequest?
    private let attempt: Int
    private let clock: any CourierClock
    private let idle: Duration?
    private let cancellation: CallCancellation
    private let onEnd: Ending
    private let state = Locked(State())

    init(
        body: ResponseBodyStream, request: HTTPRequest?, attempt: Int, clock: any CourierClock,
        timeouts: StreamTimeouts, cancellation: CallCancellation, onEnd: @escaping Ending
    ) {
        self.body = body
        self.request = request
        self.attempt = attempt
        self.clock = clock
        self.idle = timeouts.idle
        self.cancellation = cancellation
        self.onEnd = onEnd
        let registration = cancellation.onCancel { body.cancel() }
        var timer: Task<Void, Never>?
        if let total = timeouts.total {
            timer = Task { [weak self, clock] in
                do { try await clock.sleepAsTimeout(for: total) } catch { return }
                self?.expire("the stream took longer than its total timeout (\(total))")
            }
        }
        state.withLock { state in
            state.registration = registration
            state.totalTimer = timer
        }
    }

    deinit {
        // Dropped before its end: stop the transfer and still report the end once.
        let (ended, summary, timer, registration) = state.withLock {
            ($0.ended, $0.summary, $0.totalTimer, $0.registration)
        }
        guard !ended else { return }
        timer?.cancel()
        registration?.remove()
        body.cancel()
        let error = CourierError(
            .cancelled, stage: .transport, message: "the stream was dropped before its end", request: request,
            attempt: attempt)
        let onEnd = self.onEnd
        Task { await onEnd(summary, error) }
    }

    var summary: StreamSummary { state.withLock { $0.summary } }

    func cancel() { body.cancel() }

    /// Ends the body with ``/CourierCore/CourierError/Code/timedOut``.
    private func expire(_ message: String) {
        body.cancel(failing: CourierError(.timedOut, stage: .transport, message: message))
    }

    func next() async throws(CourierError) -> [UInt8]? {
        let ended = state.withLock { state -> (Bool, CourierError?) in (state.ended, state.ending) }
        if ended.0 {
            if let error = ended.1 { throw error }
            return nil
        }
        var idleTimer: Task<Void, Never>?
        if let idle, !body.hasBufferedChunks {
            idleTimer = Task { [weak self, clock] in
                do { try await clock.sleepAsTimeout(for: idle) } catch { return }
                self?.expire("no bytes arrived for \(idle) (the stream's idle timeout)")
            }
        }
        defer { idleTimer?.cancel() }
        let chunk: [UInt8]?
        do {
            var iterator = body.makeAsyncIterator()
            chunk = try await iterator.next()
        } catch {
            let failure = mapped(error)
            await end(failure)
            throw failure
        }
        guard let chunk else {
            await end(nil)
            return nil
        }
        state.withLock { state in
            state.summary.bytes += Int64(chunk.count)
            state.summary.chunks += 1
        }
        return chunk
    }

    private func mapped(_ error: any Error) -> CourierError {
        if cancellation.isCancelled {
            return ErrorMapping.cancelled(
                by: cancellation, stage: .transport, request: request, attempt: attempt)
        }
        guard let request else {
            return (error as? CourierError)
                ?? CourierError(.transport, stage: .transport, message: "\(error)", underlying: error)
        }
        return ErrorMapping.transport(error, request: request, attempt: attempt)
    }

    private func end(_ error: CourierError?) async {
        let ending = state.withLock {
            state -> (StreamSummary, Task<Void, Never>?, CallCancellation.Registration?)? in
            guard !state.ended else { return nil }
            state.ended = true
            state.ending = error
            return (state.summary, state.totalTimer, state.registration)
        }
        guard let (summary, timer, registration) = ending else { return }
        timer?.cancel()
        registration?.remove()
        await onEnd(summary, error)
    }
}
