import NIOCore

/// Per-connection facts shared by the connection's handlers. Only touched on
/// the connection's event loop.
final class ConnectionInfo {
    let index: Int
    let acceptedAt: UInt64
    /// The accept-time fault for this connection, if one was queued.
    let fault: ConnectionFault?
    /// Whether the connection speaks TLS.
    let tls: Bool
    var remoteAddress = "unknown"
    /// When the first byte of the exchange being received arrived.
    var exchangeFirstByte: UInt64?

    init(_ assignment: ServerCore.Assignment, tls: Bool = false) {
        self.tls = tls
        self.index = assignment.index
        self.acceptedAt = assignment.acceptedAt
        self.fault = assignment.fault
    }
}

/// Notes when each exchange's first byte arrives, before the HTTP decoder sees it.
final class FirstByteHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let info: ConnectionInfo
    private let core: ServerCore

    init(info: ConnectionInfo, core: ServerCore) {
        self.info = info
        self.core = core
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if info.exchangeFirstByte == nil { info.exchangeFirstByte = core.now() }
        context.fireChannelRead(data)
    }
}
