import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Serves one connection: collects each request, asks the engine how to
/// answer, runs the answer's plan (faults included) and records the exchange.
/// Requests are answered one at a time, in order.
final class MockConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart

    private struct Receiving {
        var head: HTTPRequestHead
        var body: [UInt8] = []
        var firstByte: UInt64
        var headersDone: UInt64
        var exchangeIndex: Int
        /// A request-body fault chosen on the head alone.
        var bodyFault: MatchedResponse?
        /// A resumable upload's request: its bytes are kept as they arrive.
        var upload: ResumableUploadRoutes.Mark?
    }

    private struct Complete {
        var request: RecordedRequest
        var exchangeIndex: Int
        var firstByte: UInt64
        var headersDone: UInt64
        var bodyDone: UInt64?
        var upload: ResumableUploadRoutes.Mark?
    }

    private let core: ServerCore
    private let info: ConnectionInfo
    private var receiving: Receiving?
    /// Ignore the rest of the current request (a fault already answered it).
    private var discarding = false
    private var queue = CircularBuffer<Complete>()
    private var busy = false
    /// No more answers on this connection: closed, stalled or half-closed.
    private var silent = false
    private var exchanges = 0
    /// The journal entry of this connection's latest exchange.
    private var latestSequence: Int?
    /// The client closed its side (FIN): answer what is owed, then close.
    private var inputClosed = false

    init(core: ServerCore, info: ConnectionInfo) {
        self.core = core
        self.info = info
    }

    func channelActive(context: ChannelHandlerContext) {
        info.remoteAddress = context.remoteAddress.map(Self.describe) ?? "unknown"
        switch info.fault {
        case .stallAfterAccept?:
            silent = true
        case .resetAfterAccept?:
            silent = true
            _ = PlanExecutor.run([.reset], on: context.channel)
        case nil:
            break
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !silent else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            exchanges += 1
            let now = core.now()
            discarding = false
            var current = Receiving(
                head: head, firstByte: info.exchangeFirstByte ?? now, headersDone: now,
                exchangeIndex: exchanges)
            info.exchangeFirstByte = nil
            if !head.uri.hasPrefix(AdminAPI.prefix) {
                current.bodyFault = core.registry.matchRequestBodyFault { Self.record(head, body: []) }
            }
            if core.configuration.builtinRoutes, current.bodyFault == nil,
                let (upload, interim) = ResumableUploadRoutes.start(head, uploads: core.uploads)
            {
                current.upload = upload
                if let interim {
                    context.writeAndFlush(
                        NIOAny(context.channel.allocator.buffer(string: interim)), promise: nil)
                }
            }
            receiving = current
            if current.bodyFault?.response.fault == .doNotReadRequestBody {
                answerBodyFault(context: context, current, bodyDone: nil)
            } else if current.bodyFault == nil, head.headers["expect"].first?.lowercased() == "100-continue" {
                context.writeAndFlush(
                    NIOAny(context.channel.allocator.buffer(string: "HTTP/1.1 100 Continue\r\n\r\n")),
                    promise: nil)
            }
        case .body(let buffer):
            // Taken out of `receiving` while it grows: appending to a copy would
            // copy the whole body for every read.
            guard !discarding, var current = receiving.take() else { return }
            if current.bodyFault != nil {
                receiving = current
                answerBodyFault(context: context, current, bodyDone: nil)
                return
            }
            buffer.withUnsafeReadableBytes { current.body.append(contentsOf: $0) }
            receiving = current
            if let upload = current.upload, let id = upload.id, !upload.mismatch,
                buffer.withUnsafeReadableBytes({ core.uploads.append($0, to: id) })
            {
                // The upload's planned network drop: what arrived is kept.
                silent = true
                discarding = true
                _ = PlanExecutor.run([.reset], on: context.channel)
                return
            }
            if current.body.count > core.configuration.maxRequestBodySize {
                discarding = true
                reject(
                    context: context, current, status: 413,
                    reason: "request body over \(core.configuration.maxRequestBodySize) bytes")
            }
        case .end:
            guard !discarding, let current = receiving else { return }
            receiving = nil
            if current.bodyFault != nil {
                answerBodyFault(context: context, current, bodyDone: core.now())
                return
            }
            queue.append(
                Complete(
                    request: Self.record(current.head, body: current.body),
                    exchangeIndex: current.exchangeIndex,
                    firstByte: current.firstByte, headersDone: current.headersDone, bodyDone: core.now(),
                    upload: current.upload))
            processNext(context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !silent else { return }
        if error is HTTPParserError {
            // Garbage or a malformed request: answer 400 (431 for huge headers) and close.
            silent = true
            let status = (error as? HTTPParserError) == .headerOverflow ? 431 : 400
            let plan = ResponsePlan.make(
                .json(.object(["error": .string("malformed request: \(error)")]), status: status), delayMs: 0,
                keepAlive: false)
            _ = PlanExecutor.run(plan.steps, on: context.channel)
            return
        }
        context.close(promise: nil)
    }

    /// The client closed its side of the connection (FIN; the server allows
    /// half-closed connections for the half-close faults). Answers already
    /// owed are still sent — a client may half-close right after its
    /// request — and then, or at once when nothing is owed, the connection is
    /// closed: otherwise every client that hangs up an idle keep-alive
    /// connection would leave it open here (found by scripts/soak: one
    /// descriptor per connect-and-close, without end).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            inputClosed = true
            closeIfDone(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Closes a connection whose client hung up once nothing more is owed.
    private func closeIfDone(context: ChannelHandlerContext) {
        guard inputClosed, !busy, queue.isEmpty else { return }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        silent = true
        if let latestSequence {
            let closed = core.now()
            core.journal.update(latestSequence) { $0.timestamps.connectionClosed = closed }
        }
        context.fireChannelInactive()
    }

    // MARK: - Answering

    private func processNext(context: ChannelHandlerContext) {
        guard !busy, !silent, !queue.isEmpty else { return }
        let next = queue.removeFirst()
        busy = true
        if let recorder = core.recorder, !AdminAPI.isAdmin(next.request) {
            forward(next, through: recorder, context: context)
            return
        }
        let answer =
            next.upload.map { Dispatcher(core: core).answer(next.request, upload: $0) }
            ?? Dispatcher(core: core).answer(next.request, remoteAddress: info.remoteAddress)
        let sequence = answer.journal.map { record(next, $0) }
        if let script = answer.webSocket {
            return upgrade(context: context, answer.plan, script, sequence: sequence)
        }
        run(
            context: context, next.request.method == "HEAD" ? answer.plan.withoutContent() : answer.plan,
            sequence: sequence)
    }

    /// Recording: the target's answer, journaled like a built-in route's.
    private func forward(_ exchange: Complete, through recorder: Recorder, context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let promise = context.eventLoop.makePromise(of: StubResponse.self)
        promise.completeWithTask { await recorder.forward(exchange.request) }
        promise.futureResult.whenSuccess { response in
            let (handler, context) = bound.value
            let plan = ResponsePlan.make(
                response, delayMs: 0, keepAlive: Dispatcher.keepsAlive(exchange.request))
            var fields = JournalFields(status: plan.status)
            fields.builtinRoute = "recording"
            fields.response = RecordedResponse(planned: response)
            fields.note(Dispatcher(core: handler.core).checkRecorded(exchange.request, response))
            let sequence = handler.record(exchange, fields)
            handler.run(
                context: context, exchange.request.method == "HEAD" ? plan.withoutContent() : plan,
                sequence: sequence)
        }
    }

    private func run(context: ChannelHandlerContext, _ plan: ResponsePlan, sequence: Int?) {
        execute(context: context, plan, sequence: sequence) { handler, context, outcome in
            handler.finished(context: context, outcome: outcome)
        }
    }

    /// Runs `plan`, journals when it began and ended and what it wrote,
    /// then calls `then` on the event loop.
    private func execute(
        context: ChannelHandlerContext, _ plan: ResponsePlan, sequence: Int?,
        then: @escaping (MockConnectionHandler, ChannelHandlerContext, PlanOutcome) -> Void
    ) {
        let start = core.now()
        let bound = NIOLoopBound((self, context, then), eventLoop: context.eventLoop)
        let core = self.core
        PlanExecutor.run(plan.steps, on: context.channel).whenSuccess { result in
            if let sequence {
                let end = core.now()
                core.journal.update(sequence) { entry in
                    entry.timestamps.responseStart = start
                    entry.timestamps.responseEnd = end
                    entry.bytesWritten = result.bytesWritten
                }
            }
            let (handler, context, then) = bound.value
            then(handler, context, result.outcome)
        }
    }

    /// Writes the `101`, then hands the connection to the conversation:
    /// the HTTP decoder and this handler leave, NIO's WebSocket frame
    /// decoder and encoder and a ``MockWebSocketHandler`` come.
    private func upgrade(
        context: ChannelHandlerContext, _ plan: ResponsePlan, _ script: WebSocketScript, sequence: Int?
    ) {
        silent = true
        let core = self.core
        execute(context: context, plan, sequence: sequence) { handler, context, _ in
            let pipeline = context.pipeline.syncOperations
            do {
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                pipeline.removeHandler(decoder, promise: nil)
                try pipeline.addHandlers([
                    RawFrameBytes(), ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 26)),
                    WebSocketFrameEncoder(), WebSocketProtocolErrorHandler(),
                    MockWebSocketHandler(script: script, core: core, sequence: sequence),
                ])
                pipeline.removeHandler(context: context, promise: nil)
            } catch {
                handler.core.logger.error("could not start a WebSocket conversation: \(error)")
                context.close(promise: nil)
            }
        }
    }

    private func finished(context: ChannelHandlerContext, outcome: PlanOutcome) {
        busy = false
        switch outcome {
        case .keepAlive: processNext(context: context)
        case .closed, .silent: silent = true
        }
        closeIfDone(context: context)
    }

    /// A request-body fault: answer (or close) now, without the body.
    private func answerBodyFault(context: ChannelHandlerContext, _ current: Receiving, bodyDone: UInt64?) {
        guard let matched = current.bodyFault else { return }
        discarding = true
        receiving = nil
        silent = true
        let complete = Complete(
            request: Self.record(current.head, body: []), exchangeIndex: current.exchangeIndex,
            firstByte: current.firstByte, headersDone: current.headersDone, bodyDone: bodyDone)
        let plan = ResponsePlan.make(matched.response, delayMs: 0, keepAlive: false)
        var fields = JournalFields(matched: matched, status: plan.status)
        fields.response = RecordedResponse(planned: matched.response)
        let sequence = record(complete, fields)
        busy = true
        run(context: context, plan, sequence: sequence)
    }

    private func reject(context: ChannelHandlerContext, _ current: Receiving, status: Int, reason: String) {
        receiving = nil
        silent = true
        let complete = Complete(
            request: Self.record(current.head, body: []), exchangeIndex: current.exchangeIndex,
            firstByte: current.firstByte, headersDone: current.headersDone, bodyDone: nil)
        let plan = ResponsePlan.make(
            .json(.object(["error": .string(reason)]), status: status), delayMs: 0, keepAlive: false)
        let sequence = record(complete, JournalFields(status: status))
        busy = true
        run(context: context, plan, sequence: sequence)
    }

    private func record(_ exchange: Complete, _ fields: JournalFields) -> Int {
        let info = self.info
        var entry = JournalEntry(
            sequence: 0, connectionIndex: info.index, exchangeIndex: exchange.exchangeIndex,
            remoteAddress: info.remoteAddress, request: exchange.request, stubID: fields.stubID,
            responseIndex: fields.responseIndex, builtinRoute: fields.builtinRoute,
            unmatched: fields.unmatched,
            scenarioName: fields.scenarioName, scenarioStateBefore: fields.stateBefore,
            scenarioStateAfter: fields.stateAfter, fault: fields.fault, delayMs: fields.delayMs,
            status: fields.status,
            bytesWritten: 0,
            timestamps: .init(
                accepted: info.acceptedAt, firstByte: exchange.firstByte,
                headersDone: exchange.headersDone,
                bodyDone: exchange.bodyDone))
        entry.response = fields.response
        entry.tls = info.tls
        entry.nearMisses = fields.nearMisses
        entry.operationID = fields.operationID
        entry.findings = fields.findings
        let sequence = core.journal.record(entry)
        latestSequence = sequence
        return sequence
    }

    private static func record(_ head: HTTPRequestHead, body: [UInt8]) -> RecordedRequest {
        RecordedRequest(
            method: head.method.rawValue, uri: head.uri,
            version: Self.describe(head.version),
            headers: head.headers.map { RecordedRequest.HeaderLine(name: $0.name, value: $0.value) },
            body: body)
    }

    private static func describe(_ version: HTTPVersion) -> String {
        switch (version.major, version.minor) {
        case (1, 1): "HTTP/1.1"
        case (1, 0): "HTTP/1.0"
        default: "HTTP/\(version.major).\(version.minor)"
        }
    }

    private static func describe(_ address: SocketAddress) -> String {
        "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
    }
}
