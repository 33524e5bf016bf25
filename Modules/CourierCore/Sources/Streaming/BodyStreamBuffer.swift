import HTTPTypes

/// The bounded hand-over between a transport's thread, which writes a
/// streamed body's chunks, and the task reading them (``ResponseBodyStream``).
///
/// A transport offers each chunk; once the buffer holds `highWater` bytes it
/// refuses the next (``Offer/full``), the transport pauses the transfer and
/// offers the same bytes again after ``setHandlers(onDrain:onCancel:)``'s
/// `onDrain` runs — when the reader has taken the buffer down to
/// `lowWater`. So a slow reader slows the network instead of filling memory.
@_spi(Transport) public final class BodyStreamBuffer: Sendable {
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
        /// An asynchronous writer waiting for the reader to drain (``write(_:)``).
        var writer: CheckedContinuation<Void, any Error>?
        /// Tasks waiting for the buffer to hold the transfer back (``holdingBack()``).
        var holdWaiters: [CheckedContinuation<Void, Never>] = []
        var onDrain: (@Sendable () -> Void)?
        var onCancel: (@Sendable () -> Void)?
        /// The reader gave up (``cancel(failing:)``) rather than the body ending.
        var cancelled = false

        /// Lets go of the transport's hooks once the body has ended: neither
        /// runs after that, and they hold the transfer, which holds this
        /// buffer (a cycle that kept a URLSession stream's task, and its
        /// session, alive for good).
        mutating func dropHandlers() {
            onDrain = nil
            onCancel = nil
        }
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
        let cancelledAlready = state.withLock { state in
            // Hooks set after the end are not kept (see `dropHandlers`); a
            // reader that gave up before they were set still stops the transfer.
            guard !state.ended else { return state.cancelled }
            state.onDrain = onDrain
            state.onCancel = onCancel
            return false
        }
        if cancelledAlready { onCancel() }
    }

    /// The most bytes held at once so far: bounded by `highWater` plus one
    /// chunk, however slow the reader.
    public var peakBufferedBytes: Int { state.withLock { $0.peak } }

    /// Offers a chunk (on the transport's thread).
    public func offer(_ bytes: [UInt8]) -> Offer {
        put(bytes, refusingWhenFull: true)
    }

    /// Takes a chunk whatever the buffer holds (on the transport's thread),
    /// for bytes that cannot be offered again — a transport that decodes a
    /// body has already consumed the coded bytes they came from.
    /// - Returns: ``Offer/full`` when the buffer is now at its high-water
    ///   mark: the chunk is taken, and the transport pauses until `onDrain`
    ///   without offering it again. So the buffer holds at most
    ///   `highWater` plus what one read decodes to.
    public func append(_ bytes: [UInt8]) -> Offer {
        put(bytes, refusingWhenFull: false)
    }

    /// ``offer(_:)`` and ``append(_:)``: a full buffer refuses the chunk, or
    /// takes it and says it is full.
    private func put(_ bytes: [UInt8], refusingWhenFull: Bool) -> Offer {
        let (offer, waiter, holds) = state.withLock {
            state -> (Offer, CheckedContinuation<[UInt8]?, any Error>?, [CheckedContinuation<Void, Never>]) in
            if state.ended { return (.accepted, nil, []) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (.accepted, waiter, [])
            }
            if refusingWhenFull, state.buffered >= highWater {
                state.refused = true
                defer { state.holdWaiters = [] }
                return (.full, nil, state.holdWaiters)
            }
            state.chunks.append(bytes)
            state.buffered += bytes.count
            state.peak = max(state.peak, state.buffered)
            guard !refusingWhenFull, state.buffered >= highWater else { return (.accepted, nil, []) }
            state.refused = true
            defer { state.holdWaiters = [] }
            return (.full, nil, state.holdWaiters)
        }
        waiter?.resume(returning: bytes)
        for hold in holds { hold.resume() }
        return offer
    }

    /// Returns once the buffer holds the transfer back (it refused a chunk
    /// and waits for the reader) or the body ended: for tests and
    /// diagnostics that must see backpressure happen, without polling.
    public func holdingBack() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.refused || state.ended { return true }
                state.holdWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Ends the body (on the transport's thread): after the chunks already
    /// buffered, the reader sees the end, or `error`.
    public func finish(throwing error: (any Error)? = nil) {
        let (waiter, holds) = state.withLock {
            state -> (CheckedContinuation<[UInt8]?, any Error>?, [CheckedContinuation<Void, Never>]) in
            guard !state.ended else { return (nil, []) }
            state.ended = true
            state.failure = error
            state.dropHandlers()
            defer {
                state.waiter = nil
                state.holdWaiters = []
            }
            return (state.waiter, state.holdWaiters)
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
        for hold in holds { hold.resume() }
    }

    /// The reader stops: the transfer is cancelled and whatever is buffered
    /// dropped; the reader's next read fails with `error` (a deadline's
    /// error, or `CancellationError`).
    public func cancel(failing error: any Error = CancellationError()) {
        let (waiter, writer, onCancel, holds) = state.withLock { state in
            let waiter = state.waiter
            let writer = state.writer
            let holds = state.holdWaiters
            state.holdWaiters = []
            state.waiter = nil
            state.writer = nil
            let wasEnded = state.ended
            state.ended = true
            if !wasEnded { state.cancelled = true }
            state.failure = state.failure ?? error
            state.chunks = []
            state.head = 0
            state.buffered = 0
            let onCancel = wasEnded ? nil : state.onCancel
            state.dropHandlers()
            return (waiter, writer, onCancel, holds)
        }
        for hold in holds { hold.resume() }
        waiter?.resume(throwing: error)
        writer?.resume(throwing: CancellationError())
        onCancel?()
    }

    /// Writes a chunk from an asynchronous producer (a transport that reads
    /// its body as an `AsyncSequence`): returns once the chunk is taken,
    /// waiting while the buffer is full, so the producer reads no further
    /// until the reader has drained it to the low-water mark.
    /// - Throws: `CancellationError` once the reader has given up.
    public func write(_ bytes: [UInt8]) async throws {
        while true {
            if state.withLock({ $0.ended }) { throw CancellationError() }
            switch offer(bytes) {
            case .accepted:
                return
            case .full:
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<Void, any Error>) in
                    let ready = state.withLock { state -> Result<Void, any Error>? in
                        if state.ended { return .failure(CancellationError()) }
                        // Drained between the refusal and now: offer again.
                        guard state.refused else { return .success(()) }
                        state.writer = continuation
                        return nil
                    }
                    if let ready { continuation.resume(with: ready) }
                }
            }
        }
    }

    /// Whether a chunk waits to be read, so the next read returns at once.
    public var hasBufferedChunks: Bool { state.withLock { $0.head < $0.chunks.count } }

    /// Whether the buffer refused a chunk and waits for the reader to drain
    /// it: the transport holds the transfer paused meanwhile.
    public var isHoldingBack: Bool { state.withLock { $0.refused } }

    /// The next chunk, nil at the end (the reader's side).
    func next() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                let (result, drain, writer) = state.withLock {
                    state -> (
                        Result<[UInt8]?, any Error>?, (@Sendable () -> Void)?,
                        CheckedContinuation<Void, any Error>?
                    ) in
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
                        return (result, nil, nil)
                    }
                    state.refused = false
                    defer { state.writer = nil }
                    return (result, state.onDrain, state.writer)
                }
                drain?()
                writer?.resume()
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
@_spi(Transport) public struct ResponseBodyStream: AsyncSequence, Sendable {
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

    /// Whether `other` reads the same body (copies of one stream share it).
    func isSame(as other: ResponseBodyStream) -> Bool { buffer === other.buffer }

    /// Stops the transfer; reading after this fails with `error`.
    public func cancel(failing error: any Error) { buffer.cancel(failing: error) }

    /// Whether a chunk waits to be read (see ``BodyStreamBuffer/hasBufferedChunks``).
    public var hasBufferedChunks: Bool { buffer.hasBufferedChunks }

    /// The whole body in memory, for a response too small to stream (an
    /// error's body, a redirect's).
    /// - Throws: ``TransportError/Code/bodyTooLarge`` past `limit` bytes
    ///   (the transfer is cancelled then), or what reading throws.
    public func collect(upTo limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in self {
            guard bytes.count + chunk.count <= limit else {
                cancel()
                throw TransportError(.bodyTooLarge, "the response body is larger than \(limit) bytes")
            }
            bytes += chunk
        }
        return bytes
    }

    /// A body that is `bytes`, already complete: for a response made in
    /// memory (by an interceptor, a test) that a streaming call hands on.
    public init(bytes: [UInt8]) {
        let buffer = BodyStreamBuffer(highWater: Swift.max(1, bytes.count), lowWater: 0)
        if !bytes.isEmpty { _ = buffer.offer(bytes) }
        buffer.finish()
        self.init(buffer)
    }

    /// The most bytes buffered at once so far (see ``BodyStreamBuffer/peakBufferedBytes``).
    public var peakBufferedBytes: Int { buffer.peakBufferedBytes }

    /// Whether the transfer is paused for the reader to catch up (see
    /// ``BodyStreamBuffer/isHoldingBack``).
    public var isHoldingBack: Bool { buffer.isHoldingBack }

    /// Returns once the transfer is held back or the body ended (see
    /// ``BodyStreamBuffer/holdingBack()``).
    public func holdingBack() async { await buffer.holdingBack() }
}
