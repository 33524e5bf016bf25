#if AsyncHTTPClient
    @_spi(Locking) @_spi(Transport) import CourierCore
    import CourierWebSocket
    import HTTPTypes
    import NIOCore
    import NIOConcurrencyHelpers
    import NIOHTTP1
    import NIOSSL
    import NIOWebSocket

    /// What an opening handshake on NIO came to.
    enum AHCWebSocketUpgrade: Sendable {
        /// `101`: the connection, and the response head.
        case upgraded(AHCWebSocketChannel, HTTPResponse)
        /// Any other answer, read whole (a redirect's, a 401's body).
        case refused(HTTPResponse, [UInt8])

        /// What the pipeline yields before the refusal's body is read.
        enum Negotiated: Sendable {
            case upgraded(any Channel, AHCFrameInbox, HTTPResponseHead)
            case refused(AHCRefusalReader)
        }

        /// The most bytes of a refusal's body read: a redirect's or a 401's is short.
        static let refusalLimit = 1 << 20

        /// Sets up `channel` for the handshake `head`: NIO's HTTP client
        /// pipeline with its WebSocket upgrader; after a `101`, the frame
        /// aggregator (the message limits) and an ``AHCFrameInbox`` of
        /// `limits.bufferedMessages` frames, which stops reading when full.
        static func configure(_ channel: any Channel, head: HTTPRequestHead, limits: WebSocketLimits) throws
            -> EventLoopFuture<Negotiated>
        {
            // The server's end of input, seen before the upgrade is done (the
            // channel allows half-closure, so its pipeline survives to decode
            // what came with the 101).
            let watch = AHCInputWatch()
            try channel.pipeline.syncOperations.addHandler(watch)
            let upgrader = NIOTypedWebSocketClientUpgrader<Negotiated>(
                maxFrameSize: max(limits.maxMessageSize, 125), enableAutomaticErrorHandling: false
            ) { channel, response in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: limits.maxFrameCount,
                            maxAccumulatedFrameSize: limits.maxMessageSize))
                    // Reads on demand: the inbox asks for one when it has room.
                    try channel.syncOptions?.setOption(.autoRead, value: false)
                    let inbox = AHCFrameInbox(
                        capacity: limits.bufferedMessages, channel: channel, watch: watch)
                    try channel.pipeline.syncOperations.addHandler(inbox)
                    return .upgraded(channel, inbox, response)
                }
            }
            let configuration = NIOTypedHTTPClientUpgradeConfiguration<Negotiated>(
                upgradeRequestHead: head, upgraders: [upgrader]
            ) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let reader = AHCRefusalReader(limit: refusalLimit, eventLoop: channel.eventLoop)
                    try channel.pipeline.syncOperations.addHandler(reader)
                    return .refused(reader)
                }
            }
            // Frames the server sends with its 101 come in the same read: keep them.
            var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
            pipeline.leftOverBytesStrategy = .forwardBytes
            let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                configuration: pipeline)
            // NIO completes the upgrade's future, then forwards the bytes that
            // came with the 101 in the same turn of the loop: a task queued
            // from the completion runs after them.
            negotiated.whenComplete { outcome in
                switch outcome {
                case .success(.upgraded(_, let inbox, _)):
                    channel.eventLoop.execute {
                        inbox.upgradeDone()
                        // Its work is done: no lock on every read from here on.
                        channel.pipeline.syncOperations.removeHandler(watch, promise: nil)
                    }
                case .success(.refused):
                    break
                case .failure:
                    // Half-closure is on: nothing else closes it.
                    channel.close(promise: nil)
                }
            }
            return negotiated
        }

        /// The handshake's outcome, a refusal's body read.
        static func settle(_ negotiated: EventLoopFuture<Negotiated>) async throws -> AHCWebSocketUpgrade {
            do {
                switch try await negotiated.get() {
                case .upgraded(let channel, let inbox, let head):
                    return .upgraded(AHCWebSocketChannel(channel, inbox: inbox, head: head), response(head))
                case .refused(let reader):
                    let (head, body) = try await reader.response.futureResult.get()
                    return .refused(response(head), body)
                }
            } catch {
                throw transportError(error)
            }
        }

        static func response(_ head: HTTPResponseHead) -> HTTPResponse {
            var fields = HTTPFields()
            for header in head.headers {
                guard let name = HTTPField.Name(header.name) else { continue }
                fields.append(HTTPField(name: name, value: header.value))
            }
            return HTTPResponse(status: .init(code: Int(head.status.code)), headerFields: fields)
        }

        /// NIO's errors as the transport's.
        static func transportError(_ error: any Error) -> any Error {
            if error is TransportError || error is CancellationError { return error }
            if let error = error as? ChannelError, case .connectTimeout = error {
                return TransportError(.timedOut, "connecting timed out")
            }
            if error is NIOSSLError {
                return TransportError(.tls, "TLS failed: \(error)")
            }
            if let error = error as? IOError {
                return TransportError(.connectionFailed, "the connection failed: \(error)")
            }
            if error is NIOHTTPClientUpgradeError {
                return TransportError(
                    .protocolError, "the server's 101 is not a WebSocket handshake: \(error)")
            }
            return TransportError(.connectionFailed, "\(error)")
        }
    }

    /// Reads the response of a handshake the server refused.
    final class AHCRefusalReader: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPClientResponsePart

        let response: EventLoopPromise<(HTTPResponseHead, [UInt8])>
        private let limit: Int
        private let parts = NIOLockedValueBox<(head: HTTPResponseHead?, body: [UInt8])>((nil, []))

        init(limit: Int, eventLoop: any EventLoop) {
            self.limit = limit
            response = eventLoop.makePromise()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                parts.withLockedValue { $0.head = head }
            case .body(var buffer):
                parts.withLockedValue { parts in
                    let room = max(0, limit - parts.body.count)
                    parts.body += buffer.readBytes(length: min(room, buffer.readableBytes)) ?? []
                }
            case .end:
                let (head, body) = parts.withLockedValue { ($0.head, $0.body) }
                if let head { response.succeed((head, body)) }
                context.close(promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            response.fail(TransportError(.connectionFailed, "the server closed before its answer ended"))
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            // Half-closure is on: the end of input is an event, not a close.
            if let event = event as? ChannelEvent, event == .inputClosed {
                response.fail(TransportError(.connectionFailed, "the server closed before its answer ended"))
                context.close(promise: nil)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            response.fail(error)
            context.close(promise: nil)
        }
    }

    /// An upgraded NIO connection as a ``WebSocketChannel``: frames from
    /// its ``AHCFrameInbox`` (which reads the socket only while it has
    /// room), written masked through the channel's pipeline.
    final class AHCWebSocketChannel: WebSocketChannel {
        let subprotocol: String?
        private let channel: any Channel
        private let inbox: AHCFrameInbox

        init(_ channel: any Channel, inbox: AHCFrameInbox, head: HTTPResponseHead) {
            subprotocol = head.headers.first(name: "Sec-WebSocket-Protocol")
            self.channel = channel
            self.inbox = inbox
        }

        deinit { abort() }

        func receive() async throws -> WebSocketInbound? {
            do {
                guard let frame = try await inbox.next() else { return nil }
                return Self.inbound(frame)
            } catch let error as NIOWebSocketFrameAggregator.Error {
                throw Self.failure(error)
            } catch let error as NIOWebSocketError {
                throw Self.failure(error)
            }
        }

        func send(_ frame: WebSocketOutbound) async throws {
            let (opcode, bytes): (WebSocketOpcode, [UInt8]) =
                switch frame {
                case .message(.text(let text)): (.text, Array(text.utf8))
                case .message(.binary(let bytes)): (.binary, bytes)
                case .ping(let payload): (.ping, payload)
                case .pong(let payload): (.pong, payload)
                case .close(let close): (.connectionClose, close.payload)
                }
            let outgoing = WebSocketFrame(
                fin: true, opcode: opcode, maskKey: .random(), data: channel.allocator.buffer(bytes: bytes))
            try await channel.writeAndFlush(outgoing).get()
        }

        func abort() {
            channel.close(promise: nil)
        }

        static func inbound(_ frame: WebSocketFrame) -> WebSocketInbound? {
            let bytes = Array(frame.unmaskedData.readableBytesView)
            switch frame.opcode {
            case .text: return .text(bytes)
            case .binary: return .binary(bytes)
            case .ping: return .ping(bytes)
            case .pong: return .pong(bytes)
            case .connectionClose: return .close(WebSocketClose(payload: bytes))
            default: return .close(WebSocketClose(code: 1002, reason: "unknown opcode"))
            }
        }

        static func failure(_ error: NIOWebSocketFrameAggregator.Error) -> WebSocketFailure {
            switch error {
            case .accumulatedFrameSizeIsTooLarge: .messageTooLarge("a message is larger than the limit")
            case .tooManyFragments: .tooManyFrames("a message came in more frames than the limit")
            default: .protocolViolation("\(error)")
            }
        }

        static func failure(_ error: NIOWebSocketError) -> WebSocketFailure {
            switch error {
            case .invalidFrameLength: .messageTooLarge("a frame is larger than the message limit")
            default: .protocolViolation("\(error)")
            }
        }
    }
#endif
