import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A WebSocket client for the mock server's own tests, on NIO's client
/// upgrader and frame codec: frames are read and written as they are, so a
/// test sees exactly what the server sent (fragments, pings, close codes).
enum WebSocketTestClient {
    enum Outcome {
        case upgraded(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, subprotocol: String?)
        /// No `101`: the journal has the status.
        case refused
    }

    /// Opens `path` on the server at `port`, offering `subprotocols`.
    static func connect(port: Int, path: String, subprotocols: [String] = []) async throws -> Outcome {
        let upgrade: EventLoopFuture<Outcome> = try await ClientBootstrap(
            group: .singletonMultiThreadedEventLoopGroup
        )
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                let upgrader = NIOTypedWebSocketClientUpgrader<Outcome>(
                    maxFrameSize: 1 << 20,
                    upgradePipelineHandler: { channel, response in
                        channel.eventLoop.makeCompletedFuture {
                            .upgraded(
                                try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                                    wrappingChannelSynchronously: channel),
                                subprotocol: response.headers.first(name: "Sec-WebSocket-Protocol"))
                        }
                    })
                var headers = HTTPHeaders([("Host", "127.0.0.1:\(port)")])
                if !subprotocols.isEmpty {
                    headers.add(name: "Sec-WebSocket-Protocol", value: subprotocols.joined(separator: ", "))
                }
                let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                    upgradeRequestHead: HTTPRequestHead(
                        version: .http1_1, method: .GET, uri: path, headers: headers),
                    upgraders: [upgrader],
                    notUpgradingCompletionHandler: { channel in
                        channel.eventLoop.makeCompletedFuture { .refused }
                    })
                // Frames the server sends with its 101 come in the same read: keep them.
                var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(
                    upgradeConfiguration: configuration)
                pipeline.leftOverBytesStrategy = .forwardBytes
                return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                    configuration: pipeline)
            }
        }
        return try await upgrade.get()
    }

    /// An upgraded connection to `path`, or a thrown error.
    static func open(port: Int, path: String) async throws -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
    {
        guard case .upgraded(let channel, _) = try await connect(port: port, path: path) else {
            throw RawClientError("\(path) was not upgraded")
        }
        return channel
    }

    /// A client frame: masked, as RFC 6455 §5.3 requires.
    static func frame(_ opcode: WebSocketOpcode, _ bytes: [UInt8], fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, maskKey: .random(), data: ByteBuffer(bytes: bytes))
    }

    static func text(_ text: String) -> WebSocketFrame { frame(.text, Array(text.utf8)) }
}
