#if AsyncHTTPClient
    @_spi(Locking) import CourierCore
    import NIOCore

    /// Sits before the HTTP handlers from the start (after TLS) and keeps
    /// the server's end of input from them once the answer is a `101`: the
    /// HTTP decoder, still there while the upgrade replaces it, would spend
    /// the frames that came with the 101 as a last HTTP message. The end is
    /// remembered instead, and ``AHCFrameInbox`` hears it after those
    /// frames (`upgradeDone()`). Any other answer gets the end as it came
    /// (a body that ends with the connection needs it).
    final class AHCInputWatch: ChannelInboundHandler, RemovableChannelHandler, Sendable {
        typealias InboundIn = ByteBuffer

        private struct State {
            var firstBytes = true
            var upgrading = false
            var inputClosed = false
        }
        private let state = Locked(State())

        /// The upgrade is over: an end from now on goes down the pipeline
        /// (to the inbox) as it comes. Returns whether it came already.
        func finishUpgrade() -> Bool {
            state.withLock { state in
                state.upgrading = false
                return state.inputClosed
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            state.withLock { state in
                guard state.firstBytes else { return }
                state.firstBytes = false
                // "HTTP/1.1 101 …": the status line's code is at a fixed place.
                let line = bytes.getString(at: bytes.readerIndex, length: min(12, bytes.readableBytes)) ?? ""
                state.upgrading = line.hasPrefix("HTTP/1.") && line.dropFirst(9).hasPrefix("101")
            }
            context.fireChannelRead(data)
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ChannelEvent, event == .inputClosed {
                let held = state.withLock { state in
                    state.inputClosed = true
                    return state.upgrading
                }
                if held { return }
            }
            context.fireUserInboundEventTriggered(event)
        }

        func channelInactive(context: ChannelHandlerContext) {
            state.withLock { $0.inputClosed = true }
            context.fireChannelInactive()
        }
    }
#endif
