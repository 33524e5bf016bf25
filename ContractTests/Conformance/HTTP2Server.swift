import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import Synchronization

/// A cleartext HTTP/2 server ("prior knowledge": no upgrade, no TLS) on
/// loopback that answers every request 200 with its path, and counts the
/// connections it accepted.
final class HTTP2Server: Sendable {
    private let channel: any Channel
    private let accepted: Accepted

    /// The connections accepted so far.
    var connections: Int { accepted.count.load(ordering: .relaxed) }
    var port: Int { channel.localAddress?.port ?? 0 }

    private final class Accepted: Sendable {
        let count = Atomic<Int>(0)
    }

    private init(channel: any Channel, accepted: Accepted) {
        self.channel = channel
        self.accepted = accepted
    }

    static func start() async throws -> HTTP2Server {
        let accepted = Accepted()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                accepted.count.add(1, ordering: .relaxed)
                return channel.configureHTTP2Pipeline(mode: .server) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandlers(
                            HTTP2FramePayloadToHTTP1ServerCodec(), Responder())
                    }
                }
                .map { _ in }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return HTTP2Server(channel: channel, accepted: accepted)
    }

    func stop() async { try? await channel.close() }

    /// Answers each request with its path.
    private final class Responder: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let head) = unwrapInboundIn(data) else { return }
            let body = context.channel.allocator.buffer(string: head.uri)
            var headers = HTTPHeaders()
            headers.add(name: "content-length", value: "\(body.readableBytes)")
            context.write(
                wrapOutboundOut(
                    .head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
