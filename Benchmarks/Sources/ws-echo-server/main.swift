// The server scripts/bench-websocket measures WebSocket clients against: a
// SwiftNIO WebSocket server (NIOWebSocket's server upgrader and frame codec)
// that echoes every text or binary frame and answers pings and closes, and
// nothing else. Usage: ws-echo-server; prints its port.
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Echoes data frames; answers pings; answers a close and closes.
final class Echo: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary, .continuation:
            let echo = WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(echo), promise: nil)
        case .ping:
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)),
                promise: nil)
        case .connectionClose:
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in context.close(promise: nil) }
        default:
            break
        }
    }
}

let upgrader = NIOWebSocketServerUpgrader(
    maxFrameSize: 1 << 20,
    shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
    upgradePipelineHandler: { channel, _ in channel.pipeline.addHandler(Echo()) })
let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.pipeline.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
    }
    .bind(host: "127.0.0.1", port: 0).get()
// Straight to the descriptor: the script waits for this line.
let portLine = "\(listener.localAddress?.port ?? 0)\n"
_ = portLine.withCString { write(1, $0, strlen($0)) }
try await listener.closeFuture.get()
