import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a plan's steps on a channel, one after another, and reports how the
/// connection continues and how many bytes were written.
enum PlanExecutor {
    /// The most an endless fault writes before giving up on a client that keeps
    /// reading: far beyond any sane client limit, small enough to end a test.
    static let endlessLimit = 1 << 30

    struct Result: Sendable {
        var outcome: PlanOutcome
        var bytesWritten: Int
    }

    static func run(_ steps: [PlanStep], on channel: any Channel) -> EventLoopFuture<Result> {
        let promise = channel.eventLoop.makePromise(of: Result.self)
        step(merged(steps)[...], channel: channel, written: 0, promise: promise)
        return promise.futureResult
    }

    /// `steps` with each run of writes made one write: the bytes on the wire
    /// are the same, and a write that completes at once continues the plan
    /// on the same stack, so ten thousand writes in a row (an event stream's
    /// events) would otherwise nest ten thousand calls deep.
    static func merged(_ steps: [PlanStep]) -> [PlanStep] {
        // Most plans are one write: nothing to join, nothing to copy.
        let adjacentWrites = zip(steps, steps.dropFirst()).contains { pair in
            if case .write = pair.0, case .write = pair.1 { return true }
            return false
        }
        guard adjacentWrites else { return steps }
        var result: [PlanStep] = []
        result.reserveCapacity(steps.count)
        for step in steps {
            guard case .write(let bytes) = step, case .write(var joined)? = result.last else {
                result.append(step)
                continue
            }
            result.removeLast()
            joined += bytes
            result.append(.write(joined))
        }
        return result
    }

    private static func step(
        _ steps: ArraySlice<PlanStep>, channel: any Channel, written: Int, promise: EventLoopPromise<Result>
    ) {
        guard let first = steps.first else {
            promise.succeed(Result(outcome: .keepAlive, bytesWritten: written))
            return
        }
        let rest = steps.dropFirst()
        switch first {
        case .write(let bytes):
            send(
                channel.allocator.buffer(bytes: bytes), then: rest, channel: channel, written: written,
                promise: promise)
        case .send(let buffer):
            send(buffer, then: rest, channel: channel, written: written, promise: promise)
        case .wait(let milliseconds):
            channel.eventLoop.scheduleTask(in: .milliseconds(Int64(milliseconds))) {
                guard channel.isActive else {
                    promise.succeed(Result(outcome: .closed, bytesWritten: written))
                    return
                }
                step(rest, channel: channel, written: written, promise: promise)
            }
        case .close:
            channel.close(promise: nil)
            promise.succeed(Result(outcome: .closed, bytesWritten: written))
        case .reset:
            // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            let lingered =
                (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
                ?? channel.eventLoop.makeSucceededVoidFuture()
            lingered.whenComplete { _ in
                channel.close(promise: nil)
                promise.succeed(Result(outcome: .closed, bytesWritten: written))
            }
        case .shutdownOutput:
            channel.close(mode: .output).whenComplete { _ in
                promise.succeed(Result(outcome: .silent, bytesWritten: written))
            }
        case .shutdownInput:
            channel.close(mode: .input).whenComplete { _ in
                promise.succeed(Result(outcome: .silent, bytesWritten: written))
            }
        case .stall:
            promise.succeed(Result(outcome: .silent, bytesWritten: written))
        case .endlessHeaders:
            let line = Array(("X-Endless: " + String(repeating: "h", count: 1000) + "\r\n").utf8)
            endless(
                Array(repeating: line, count: 16).flatMap { $0 }, channel: channel, written: written,
                promise: promise)
        case .endlessBody:
            endless(
                Chunked.frame([UInt8](repeating: UInt8(ascii: "x"), count: 16 * 1024)), channel: channel,
                written: written, promise: promise)
        case .pattern(let count):
            pattern(from: 0, count: count, channel: channel, written: written) { result in
                if result.outcome == .closed {
                    promise.succeed(result)
                } else {
                    step(rest, channel: channel, written: result.bytesWritten, promise: promise)
                }
            }
        }
    }

    private static func send(
        _ buffer: ByteBuffer, then rest: ArraySlice<PlanStep>, channel: any Channel, written: Int,
        promise: EventLoopPromise<Result>
    ) {
        channel.writeAndFlush(buffer).whenComplete { result in
            switch result {
            case .success:
                step(rest, channel: channel, written: written + buffer.readableBytes, promise: promise)
            case .failure: promise.succeed(Result(outcome: .closed, bytesWritten: written))
            }
        }
    }

    /// Bytes of a generated body written at once: each piece waits for the
    /// previous one to reach the socket, so memory stays at one piece.
    static let patternPiece = 256 * 1024

    private static func pattern(
        from offset: Int, count: Int, channel: any Channel, written: Int,
        then: @escaping @Sendable (Result) -> Void
    ) {
        guard offset < count else {
            then(Result(outcome: .keepAlive, bytesWritten: written))
            return
        }
        let end = min(count, offset + patternPiece)
        var buffer = channel.allocator.buffer(capacity: end - offset)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: end - offset) { raw in
            for index in offset..<end { raw[index - offset] = BuiltinRoutes.patternByte(index) }
            return end - offset
        }
        channel.writeAndFlush(buffer).whenComplete { result in
            switch result {
            case .success:
                channel.eventLoop.execute {
                    pattern(
                        from: end, count: count, channel: channel, written: written + end - offset, then: then
                    )
                }
            case .failure:
                then(Result(outcome: .closed, bytesWritten: written))
            }
        }
    }

    private static func endless(
        _ piece: [UInt8], channel: any Channel, written: Int, promise: EventLoopPromise<Result>
    ) {
        guard channel.isActive, written < endlessLimit else {
            channel.close(promise: nil)
            promise.succeed(Result(outcome: .closed, bytesWritten: written))
            return
        }
        channel.writeAndFlush(channel.allocator.buffer(bytes: piece)).whenComplete { result in
            switch result {
            case .success:
                // Through the loop's queue, not recursion: a client that reads as
                // fast as this writes must not starve other connections on the loop.
                channel.eventLoop.execute {
                    endless(piece, channel: channel, written: written + piece.count, promise: promise)
                }
            case .failure: promise.succeed(Result(outcome: .closed, bytesWritten: written))
            }
        }
    }
}
