import NIOCore
import NIOWebSocket

/// Plays a ``WebSocketScript`` on an upgraded connection, on its event loop:
/// the steps in order, pings answered, the close handshake, every frame in
/// the journal entry of the request that was upgraded.
final class MockWebSocketHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// What the conversation waits for before its next step.
    private enum Waiting {
        case expect(WebSocketScript.Expectation, answer: [WebSocketScript.Message], step: Int)
        case echo(remaining: Int)
    }

    private let script: WebSocketScript
    private let core: ServerCore
    private let sequence: Int?
    private var next = 0
    private var waiting: Waiting?
    /// The message being assembled from its fragments.
    private var message: (opcode: WebSocketOpcode, bytes: [UInt8])?
    private var answersPings = true
    /// The server sent its close frame.
    private var closing = false
    /// The steps are done; ``WebSocketScript/then`` rules.
    private var done = false

    init(script: WebSocketScript, core: ServerCore, sequence: Int?) {
        self.script = script
        self.core = core
        self.sequence = sequence
    }

    func handlerAdded(context: ChannelHandlerContext) {
        advance(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let payload = Array(frame.unmaskedData.readableBytesView)
        journal("in", frame.opcode, fin: frame.fin, payload)
        // RFC 6455 §5.1: a server closes on an unmasked frame from a client.
        guard frame.maskKey != nil else { return fail(context, 1002, "a client's frames must be masked") }
        switch frame.opcode {
        case .ping:
            if answersPings, !closing { send(context, .pong, payload) }
        case .pong:
            break
        case .connectionClose:
            if !closing {
                // Echo the client's code (RFC 6455 §5.5.1), or none.
                closing = true
                send(context, .connectionClose, Array(payload.prefix(2)))
            }
            context.close(promise: nil)
        case .text, .binary:
            guard message == nil else {
                return fail(context, 1002, "a new message before the last one ended")
            }
            message = (frame.opcode, payload)
            if frame.fin { deliver(context) }
        case .continuation:
            guard message != nil else { return fail(context, 1002, "a continuation without a message") }
            message?.bytes += payload
            if frame.fin { deliver(context) }
        default:
            fail(context, 1002, "an unknown opcode")
        }
    }

    /// A whole message from the client.
    private func deliver(_ context: ChannelHandlerContext) {
        guard let (opcode, bytes) = message else { return }
        message = nil
        let text = opcode == .text ? String(validating: bytes, as: UTF8.self) : nil
        if opcode == .text, text == nil { return fail(context, 1007, "a text message that is not UTF-8") }
        switch waiting {
        case .expect(let expectation, let answer, let step)?:
            let met =
                switch expectation {
                case .text(let matcher): text.map { matcher.matches($0) } ?? false
                case .binary: opcode == .binary
                }
            guard met else { return fail(context, 1008, "step \(step) expected \(expectation)") }
            for message in answer { send(context, message) }
            waiting = nil
            advance(context)
        case .echo(let remaining)?:
            send(context, opcode, bytes)
            waiting = remaining > 1 ? .echo(remaining: remaining - 1) : nil
            if waiting == nil { advance(context) }
        case nil:
            if done, script.then == .echo { send(context, opcode, bytes) }
        }
    }

    /// Runs steps until one waits for the client, is delayed, or closes.
    private func advance(_ context: ChannelHandlerContext) {
        while waiting == nil, !closing, next < script.steps.count {
            let (step, delay) = script.steps[next]
            next += 1
            guard delay > 0 else {
                perform(context, step, index: next - 1)
                continue
            }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(Int64(delay))) {
                let (handler, context) = bound.value
                guard context.channel.isActive else { return }
                handler.perform(context, step, index: handler.next - 1)
                handler.advance(context)
            }
            return
        }
        guard waiting == nil, !closing, next >= script.steps.count, !done else { return }
        done = true
        if script.then == .close { close(context, code: 1000, reason: "") }
    }

    private func perform(_ context: ChannelHandlerContext, _ step: WebSocketScript.Step, index: Int) {
        switch step {
        case .send(let message): send(context, message)
        case .expect(let expectation, let answer): waiting = .expect(expectation, answer: answer, step: index)
        case .echo(let count): waiting = .echo(remaining: count)
        case .ping(let payload): send(context, .ping, payload)
        case .close(let code, let reason): close(context, code: code, reason: reason)
        case .fault(let fault): misbehave(context, fault)
        }
    }

    private func misbehave(_ context: ChannelHandlerContext, _ fault: WebSocketScript.Fault) {
        switch fault {
        case .noPong:
            answersPings = false
        case .invalidUTF8:
            send(context, .text, [0x68, 0xC3, 0x28, 0xFF])
        case .oversizedFrame(let bytes):
            send(context, .binary, (0..<bytes).map { UInt8(truncatingIfNeeded: $0) })
        case .fragmented(let text, let fragments):
            let bytes = Array(text.utf8)
            let size = max(1, (bytes.count + fragments - 1) / fragments)
            let parts = stride(from: 0, to: max(bytes.count, 1), by: size).map {
                Array(bytes[$0..<min($0 + size, bytes.count)])
            }
            for (index, part) in parts.enumerated() {
                let last = index == parts.count - 1
                send(context, index == 0 ? .text : .continuation, part, fin: last)
                if !last { send(context, .ping, Array("between".utf8)) }
            }
        case .dropMidFrame(let bytes):
            // A head promising `bytes`, half of them, then the end of the
            // connection: no encoder writes half a frame, so these bytes go
            // below it.
            var head: [UInt8] = [0x82]
            if bytes < 126 {
                head.append(UInt8(bytes))
            } else if bytes <= 0xFFFF {
                head += [126, UInt8(bytes >> 8), UInt8(bytes & 0xFF)]
            } else {
                head.append(127)
                head += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(bytes) >> ($0 * 8)) }
            }
            let raw = head + [UInt8](repeating: 0x2A, count: bytes / 2)
            journal("out", nil, fin: false, [UInt8](repeating: 0, count: bytes / 2), fault: "dropMidFrame")
            closing = true
            if let below = try? context.pipeline.syncOperations.context(handlerType: RawFrameBytes.self) {
                below.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: raw))).whenComplete { _ in
                    below.close(promise: nil)
                }
            } else {
                context.close(promise: nil)
            }
        }
    }

    private func close(_ context: ChannelHandlerContext, code: UInt16, reason: String) {
        guard !closing else { return }
        closing = true
        send(context, .connectionClose, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    /// Ends the conversation for a client that broke the protocol or the script.
    private func fail(_ context: ChannelHandlerContext, _ code: UInt16, _ reason: String) {
        close(context, code: code, reason: String(reason.utf8.prefix(123)) ?? "")
    }

    private func send(_ context: ChannelHandlerContext, _ message: WebSocketScript.Message) {
        switch message {
        case .text(let text): send(context, .text, Array(text.utf8))
        case .binary(let bytes): send(context, .binary, bytes)
        }
    }

    private func send(
        _ context: ChannelHandlerContext, _ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true
    ) {
        journal("out", opcode, fin: fin, payload)
        let frame = WebSocketFrame(
            fin: fin, opcode: opcode, data: context.channel.allocator.buffer(bytes: payload))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    private func journal(
        _ direction: String, _ opcode: WebSocketOpcode?, fin: Bool, _ payload: [UInt8], fault: String? = nil
    ) {
        guard let sequence else { return }
        var record = WebSocketFrameRecord(
            direction: direction, opcode: fault ?? Self.name(opcode), fin: fin, length: payload.count,
            text: nil,
            closeCode: nil, at: core.now())
        switch opcode {
        case .text?, .continuation?:
            record.text = String(validating: payload.prefix(256), as: UTF8.self)
        case .connectionClose?:
            if payload.count >= 2 { record.closeCode = Int(payload[0]) << 8 | Int(payload[1]) }
            record.text = String(validating: payload.dropFirst(2), as: UTF8.self)
        default:
            break
        }
        core.journal.update(sequence) { entry in
            if entry.webSocketFrames == nil { entry.webSocketFrames = [] }
            if (entry.webSocketFrames?.count ?? 0) >= WebSocketFrameRecord.kept {
                entry.webSocketFramesDropped += 1
            } else {
                entry.webSocketFrames?.append(record)
            }
        }
    }

    private static func name(_ opcode: WebSocketOpcode?) -> String {
        switch opcode {
        case .text?: "text"
        case .binary?: "binary"
        case .continuation?: "continuation"
        case .ping?: "ping"
        case .pong?: "pong"
        case .connectionClose?: "close"
        default: "other"
        }
    }
}

/// Sits between the socket and the frame encoder, so that a fault can
/// write bytes no encoder would (half a frame).
final class RawFrameBytes: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
}
