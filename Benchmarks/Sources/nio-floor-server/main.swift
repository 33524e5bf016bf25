// The floor courier-mock is measured against in scripts/bench-mock: the
// least a SwiftNIO HTTP/1.1 server can do per request — the same decoder,
// the same event loops and socket options as courier-mock, one prebuilt
// response written per request — and nothing a mock does (no record, no
// matching, no journal). Usage: nio-floor-server BODY; prints its port.
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Answers every complete request with the same bytes.
final class FixedAnswer: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    private let response: ByteBuffer

    init(response: ByteBuffer) { self.response = response }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            context.writeAndFlush(NIOAny(response), promise: nil)
        }
    }
}

let body = CommandLine.arguments.dropFirst().first ?? "{}"
let bytes =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
let response = ByteBufferAllocator().buffer(string: bytes)
let group = MultiThreadedEventLoopGroup.singleton
let listener = try await ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
                ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
            try channel.pipeline.syncOperations.addHandler(FixedAnswer(response: response))
        }
    }
    .bind(host: "127.0.0.1", port: 0).get()
// Written straight to the descriptor: the script waits for this line, and
// print's buffer would hold it while stdout is a file.
let portLine = "\(listener.localAddress?.port ?? 0)\n"
_ = portLine.withCString { write(1, $0, strlen($0)) }
try await listener.closeFuture.get()
