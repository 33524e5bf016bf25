import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An HTTPS/1.1 origin on loopback (a ``TLSFixture``'s certificate for
/// 127.0.0.1) that answers every request 200 `tls-origin` and records each
/// request's head as it arrived: what reached the origin through a proxy's
/// `CONNECT` tunnel, from the origin's own record.
final class TLSOrigin: Sendable {
    /// A request as the origin received it.
    struct Received: Sendable {
        var method: String
        var uri: String
        var headers: [(String, String)]
        func value(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    private let channel: any Channel
    private let received: NIOLockedValueBox<[Received]>

    var port: Int { channel.localAddress?.port ?? 0 }
    /// Every request received so far.
    var requests: [Received] { received.withLockedValue { $0 } }

    private init(channel: any Channel, received: NIOLockedValueBox<[Received]>) {
        self.channel = channel
        self.received = received
    }

    static func start(_ fixture: TLSFixture) async throws -> TLSOrigin {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(fixture.serverCertificatePath).map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: fixture.serverKeyPath, format: .pem)))
        let context = try NIOSSLContext(configuration: configuration)
        let received = NIOLockedValueBox<[Received]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder(received: received))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TLSOrigin(channel: channel, received: received)
    }

    func stop() async { try? await channel.close() }

    private final class Responder: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let received: NIOLockedValueBox<[Received]>
        init(received: NIOLockedValueBox<[Received]>) { self.received = received }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                received.withLockedValue {
                    $0.append(
                        Received(
                            method: head.method.rawValue, uri: head.uri,
                            headers: head.headers.map { ($0.name, $0.value) }))
                }
            case .body:
                break
            case .end:
                let body = context.channel.allocator.buffer(string: "tls-origin")
                var headers = HTTPHeaders()
                headers.add(name: "content-length", value: "\(body.readableBytes)")
                context.write(
                    wrapOutboundOut(
                        .head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                    promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
