@_spi(Locking) @_spi(Transport) import CourierCore
import Testing

/// The streamed body's buffer: it refuses at the high-water mark, asks the
/// transport to go on at the low-water mark, hands chunks straight to a
/// waiting reader, and tells the transport when the reader gives up.
struct BodyStreamBufferTests {
    /// How often each transport hook ran.
    final class Hooks: Sendable {
        private let counts = Locked((drains: 0, cancels: 0))
        var drains: Int { counts.withLock { $0.drains } }
        var cancels: Int { counts.withLock { $0.cancels } }
        func install(on buffer: BodyStreamBuffer) {
            buffer.setHandlers(
                onDrain: { self.counts.withLock { $0.drains += 1 } },
                onCancel: { self.counts.withLock { $0.cancels += 1 } })
        }
    }

    @Test func fullAtTheHighWaterMarkAndResumedAtTheLowOne() async throws {
        let buffer = BodyStreamBuffer(highWater: 300, lowWater: 100)
        let hooks = Hooks()
        hooks.install(on: buffer)
        let body = ResponseBodyStream(buffer)
        for _ in 0..<3 { #expect(buffer.offer([UInt8](repeating: 1, count: 100)) == .accepted) }
        #expect(buffer.offer([2]) == .full)
        #expect(buffer.isHoldingBack)
        var reader = body.makeAsyncIterator()
        _ = try await reader.next()  // 200 left: above the low-water mark
        #expect(hooks.drains == 0)
        _ = try await reader.next()  // 100 left: the transport may go on
        #expect(hooks.drains == 1)
        #expect(!buffer.isHoldingBack)
        #expect(buffer.offer([2]) == .accepted)
        buffer.finish()
        #expect(try await reader.next()?.count == 100)
        #expect(try await reader.next() == [2])
        #expect(try await reader.next() == nil)
        #expect(body.peakBufferedBytes == 300)
        #expect(hooks.cancels == 0)
    }

    @Test func aWaitingReaderGetsTheChunkAndThenTheFailure() async throws {
        let buffer = BodyStreamBuffer()
        let body = ResponseBodyStream(buffer)
        let reader = Task {
            var iterator = body.makeAsyncIterator()
            return try await iterator.next()
        }
        // The reader may not be waiting yet: either way the chunk reaches it.
        #expect(buffer.offer([7, 8]) == .accepted)
        #expect(try await reader.value == [7, 8])
        buffer.finish(throwing: TransportError(.connectionReset, "dropped"))
        var iterator = body.makeAsyncIterator()
        await #expect(throws: TransportError.self) { _ = try await iterator.next() }
    }

    @Test func aReaderThatGivesUpCancelsTheTransferOnce() async throws {
        let buffer = BodyStreamBuffer()
        let hooks = Hooks()
        hooks.install(on: buffer)
        let body = ResponseBodyStream(buffer)
        #expect(buffer.offer([1]) == .accepted)
        body.cancel()
        body.cancel()
        #expect(hooks.cancels == 1)
        var iterator = body.makeAsyncIterator()
        await #expect(throws: CancellationError.self) { _ = try await iterator.next() }
        #expect(buffer.offer([2]) == .accepted)  // dropped, not kept
        #expect(body.peakBufferedBytes == 1)
    }

    @Test func anAsynchronousWriterWaitsWhileTheBufferIsFullAndGoesOnOnceDrained() async throws {
        let buffer = BodyStreamBuffer(highWater: 200, lowWater: 0)
        let body = ResponseBodyStream(buffer)
        let writer = Task {
            for value in 0..<5 { try await buffer.write([UInt8](repeating: UInt8(value), count: 100)) }
            buffer.finish()
        }
        // Two chunks fill the buffer; the third waits.
        await buffer.holdingBack()
        #expect(buffer.isHoldingBack)
        var received: [UInt8] = []
        for try await chunk in body { received += chunk }
        try await writer.value
        #expect(received == (0..<5).flatMap { [UInt8](repeating: UInt8($0), count: 100) })
        #expect(buffer.peakBufferedBytes == 200)
    }

    @Test func aWriterWaitingOnAFullBufferStopsWhenTheReaderGivesUp() async throws {
        let buffer = BodyStreamBuffer(highWater: 100, lowWater: 0)
        let writer = Task {
            try await buffer.write([UInt8](repeating: 1, count: 100))
            try await buffer.write([2])
        }
        await buffer.holdingBack()
        buffer.cancel()
        await #expect(throws: CancellationError.self) { try await writer.value }
        await #expect(throws: CancellationError.self) { try await buffer.write([3]) }
    }

    /// The hooks hold the transfer, which holds the buffer: once the body has
    /// ended either way, the buffer lets go of them, or the two keep each
    /// other (and a URLSession task's whole session) alive.
    @Test(arguments: [false, true])
    func theHooksAreReleasedOnceTheBodyEnds(readerCancels: Bool) {
        final class Transfer: Sendable {}
        let buffer = BodyStreamBuffer()
        weak var released: Transfer?
        do {
            let transfer = Transfer()
            released = transfer
            buffer.setHandlers(onDrain: { _ = transfer }, onCancel: { _ = transfer })
        }
        #expect(released != nil)
        if readerCancels { buffer.cancel() } else { buffer.finish() }
        #expect(released == nil)
    }

    /// A reader that gave up before the transport set its hooks still stops
    /// the transfer: the cancel hook runs at once, and is not kept.
    @Test func hooksSetAfterTheReaderGaveUpCancelAtOnce() {
        let buffer = BodyStreamBuffer()
        buffer.cancel()
        let hooks = Hooks()
        hooks.install(on: buffer)
        #expect(hooks.cancels == 1)
        buffer.cancel()
        #expect(hooks.cancels == 1)
        let finished = BodyStreamBuffer()
        finished.finish()
        let quiet = Hooks()
        quiet.install(on: finished)
        #expect(quiet.cancels == 0)
    }
}
