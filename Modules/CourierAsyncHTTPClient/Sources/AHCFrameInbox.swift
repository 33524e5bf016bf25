#if AsyncHTTPClient
    @_spi(Locking) import CourierCore
    import NIOCore
    import NIOWebSocket

    /// The upgraded connection's incoming frames, in order, with the end
    /// (the connection closed, or an error) after the last of them — kept
    /// even when the server closed before the upgrade was done, which an
    /// async channel wrapped around an inactive channel would lose. With
    /// `autoRead` off, the socket is read only while fewer than `capacity`
    /// frames wait: a slow reader holds the sender back through TCP.
    final class AHCFrameInbox: ChannelInboundHandler, Sendable {
        typealias InboundIn = WebSocketFrame

        private typealias Item = Result<WebSocketFrame?, any Error>
        private typealias Waiter = CheckedContinuation<Item, Never>

        private struct State {
            var frames: [Item] = []
            var waiter: Waiter?
            var ended = false
            /// A read was asked of the channel and has not completed.
            var reading = false
        }

        private let capacity: Int
        private let state = Locked(State())
        private let channel: any Channel
        private let watch: AHCInputWatch

        init(capacity: Int, channel: any Channel, watch: AHCInputWatch) {
            self.capacity = max(1, capacity)
            self.channel = channel
            self.watch = watch
        }

        func handlerAdded(context: ChannelHandlerContext) { askToRead() }

        /// After the upgrade forwarded what came with the 101: when the
        /// server's input ended before this handler was there to hear it,
        /// the end comes now, after those frames.
        func upgradeDone() {
            if watch.finishUpgrade() { deliver(.success(nil)) }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ChannelEvent, event == .inputClosed { deliver(.success(nil)) }
            context.fireUserInboundEventTriggered(event)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            deliver(.success(unwrapInboundIn(data)))
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            state.withLock { $0.reading = false }
            askToRead()
        }

        func channelInactive(context: ChannelHandlerContext) { deliver(.success(nil)) }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            deliver(.failure(error))
        }

        /// The next frame; `nil` once the connection ended (after an error, too).
        func next() async throws -> WebSocketFrame? {
            let item = await withCheckedContinuation { (continuation: Waiter) in
                let ready = state.withLock { state -> Item? in
                    if !state.frames.isEmpty { return state.frames.removeFirst() }
                    if state.ended { return .success(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
            askToRead()
            return try item.get()
        }

        /// Reads from the socket when there is room and no read is pending.
        private func askToRead() {
            let read = state.withLock { state -> Bool in
                guard !state.ended, !state.reading, state.frames.count < capacity else { return false }
                state.reading = true
                return true
            }
            // Thread-safe: the read runs on the channel's event loop.
            if read { channel.read() }
        }

        private func deliver(_ item: Item) {
            let waiter = state.withLock { state -> Waiter? in
                guard !state.ended else { return nil }
                if case .success(let frame) = item, frame != nil {
                    // A frame.
                } else {
                    state.ended = true
                }
                guard let waiter = state.waiter else {
                    state.frames.append(item)
                    return nil
                }
                state.waiter = nil
                return waiter
            }
            waiter?.resume(returning: item)
        }
    }
#endif
