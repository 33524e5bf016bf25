import HTTPTypes

/// The bounded hand-over between a transport's thread, which writes a
/// streamed body's chunks, and the task reading them (``ResponseBodyStream``).
///
/// A transport offers each chunk; once the buffer holds `highWater` bytes it
/// refuses the next (``Offer/full``), the transport pauses the transfer and
/// offers the same bytes again after ``setHandlers(onDrain:onCancel:)``'s
/// `onDrain` runs — when the reader has taken the buffer down to
/// `lowWater`. So a slow reader slows the network instead of filling memory.
public final class BodyStreamBuffer: Sendable {
    /// What became of an offered chunk.
    public enum Offer: Sendable {
        /// Taken.
        case accepted
        /// Not taken: pause, and offer it again after `onDrain`.
        case full
    }

    private struct State {
        var chunks: [[UInt8]] = []
        var head = 0
        var buffered = 0
        var peak = 0
        var refused = false
        var ended = false
        var failure: (any Error)?
        var waiter: CheckedContinuation<[UInt8]?, any Error>?
        var onDrain: (@Sendable () -> Void)?
        var onCancel: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    private let highWater: Int
    private let lowWater: Int

    /// A buffer that refuses chunks once it holds `highWater` bytes and
    /// asks for more when the reader has taken it down to `lowWater`.
    public init(highWater: Int = 1 << 20, lowWater: Int = 256 << 10) {
        self.highWater = max(1, highWater)
        self.lowWater = min(max(0, lowWater), self.highWater)
    }

    /// The transport's hooks: `onDrain` to resume a paused transfer,
    /// `onCancel` to stop it when the reader gives up. Either may run on the
    /// reader's thread.
    public func setHandlers(onDrain: @escaping @Sendable () -> Void, onCancel: @escaping @Sendable () -> Void)
    {
        state.withLock { state in
            state.onDrain = onDrain
            state.onCancel = onCancel
        }
    }

    /// The most bytes held at once so far: bounded by `highWater` plus one
    /// chunk, however slow the reader.
    public var peakBufferedBytes: Int { state.withLock { $0.peak } }

    /// Offers a chunk (on the transport's thread).
    public func offer(_ bytes: [UInt8]) -> Offer {
        let (offer, waiter) = state.withLock { state -> (Offer, CheckedContinuation<[UInt8]?, any Error>?) in
            if state.ended { return (.accepted, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (.accepted, waiter)
            }
            guard state.buffered < highWater else {
                state.refused = true
                return (.full, nil)
            }
            state.chunks.append(bytes)
            state.buffered += bytes.count
            state.peak = max(state.peak, state.buffered)
            return (.accepted, nil)
        }
        waiter?.resume(returning: bytes)
        return offer
    }

    /// Ends the body (on the transport's thread): after the chunks already
    /// buffered, the reader sees the end, or `error`.
    public func finish(throwing error: (any Error)? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
            guard !state.ended else { return nil }
            state.ended = true
            state.failure = error
            defer { state.waiter = nil }
            return state.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// The reader stops: the transfer is cancelled and whatever is buffered dropped.
    public func cancel() {
        let (waiter, onCancel) = state.withLock { state in
            let waiter = state.waiter
            state.waiter = nil
            let wasEnded = state.ended
            state.ended = true
            state.failure = state.failure ?? CancellationError()
            state.chunks = []
            state.head = 0
            state.buffered = 0
            return (waiter, wasEnded ? nil : state.onCancel)
        }
        waiter?.resume(throwing: CancellationError())
        onCancel?()
    }

    /// Whether the buffer refused a chunk and waits for the reader to drain
    /// it: the transport holds the transfer paused meanwhile.
    public var isHoldingBack: Bool { state.withLock { $0.refused } }

    /// The next chunk, nil at the end (the reader's side).
    func next() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                let (result, drain) = state.withLock {
                    state -> (Result<[UInt8]?, any Error>?, (@Sendable () -> Void)?) in
                    var result: Result<[UInt8]?, any Error>?
                    if state.head < state.chunks.count {
                        let chunk = state.chunks[state.head]
                        state.head += 1
                        state.buffered -= chunk.count
                        if state.head == state.chunks.count {
                            state.chunks.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        result = .success(chunk)
                    } else if state.ended {
                        result = state.failure.map { .failure($0) } ?? .success(nil)
                    } else {
                        state.waiter = continuation
                    }
                    // Taken down to the low-water mark: the paused transfer may go on.
                    guard state.refused, state.buffered <= lowWater, !state.ended else {
                        return (result, nil)
                    }
                    state.refused = false
                    return (result, state.onDrain)
                }
                drain?()
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            cancel()
        }
    }
}

/// A streamed response body: its chunks as they arrive, read once. Reading
/// slowly pauses the transfer (see ``BodyStreamBuffer``); cancelling the
/// reading task, or ``cancel()``, stops it and closes the connection.
public struct ResponseBodyStream: AsyncSequence, Sendable {
    private let buffer: BodyStreamBuffer

    /// The body behind `buffer`, which a transport fills.
    public init(_ buffer: BodyStreamBuffer) { self.buffer = buffer }

    /// Reads chunks in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: BodyStreamBuffer

        /// The next chunk, or nil at the end of the body.
        public mutating func next() async throws -> [UInt8]? { try await buffer.next() }
    }

    /// An iterator over the chunks.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }

    /// Stops the transfer; reading after this fails with `CancellationError`.
    public func cancel() { buffer.cancel() }

    /// The most bytes buffered at once so far (see ``BodyStreamBuffer/peakBufferedBytes``).
    public var peakBufferedBytes: Int { buffer.peakBufferedBytes }

    /// Whether the transfer is paused for the reader to catch up (see
    /// ``BodyStreamBuffer/isHoldingBack``).
    public var isHoldingBack: Bool { buffer.isHoldingBack }
}

/// A response whose body is read as it arrives.
public struct StreamingResponse: Sendable {
    /// Status and header fields.
    public var head: HTTPResponse
    /// The body's chunks.
    public var body: ResponseBodyStream

    /// The status code.
    public var statusCode: Int { head.status.code }

    /// A response with this head and body.
    public init(head: HTTPResponse, body: ResponseBodyStream) {
        self.head = head
        self.body = body
    }
}

/// A transport that can hand a body over as it arrives.
public protocol StreamingTransport: Transport {
    /// Sends the request and returns once the response head is in; the body
    /// follows through ``StreamingResponse/body``. Redirects are not followed.
    /// - Throws: ``TransportError`` (or `CancellationError`) before the head.
    func stream(_ request: OutgoingRequest, options: TransportOptions) async throws -> StreamingResponse
}
