@_spi(Locking) import CourierCore
import HTTPTypes

/// The connection behind a ``WebSocket`` handle: its state, its reading and
/// keepalive tasks (which hold this, not the handle, so that dropping the
/// handle closes the connection).
final class WebSocketSession: Sendable {
    /// The server's `101` answer.
    let response: HTTPResponse
    /// The handshake request as it was sent (last hop).
    let request: HTTPRequest?
    /// The subprotocol the server chose, if any.
    var subprotocol: String? { channel.subprotocol }

    let channel: any WebSocketChannel
    let options: WebSocketOptions
    let clock: any CourierClock
    let decoder: (any ResponseDecoder)?
    private let state = Locked(WebSocketState())
    private let tasks = Locked<[Task<Void, Never>]>([])
    private let ended: @Sendable (StreamSummary, CourierError?) async -> Void
    /// The plugins that observe the connection, and the opening call's context.
    private let observers: [any WebSocketObserver]
    private let context: CallContext

    init(
        response: HTTPResponse, request: HTTPRequest?, channel: any WebSocketChannel,
        options: WebSocketOptions,
        clock: any CourierClock, decoder: (any ResponseDecoder)?, plugins: [any Plugin], context: CallContext,
        ended: @escaping @Sendable (StreamSummary, CourierError?) async -> Void
    ) {
        self.observers = plugins.compactMap { $0 as? any WebSocketObserver }
        self.context = context
        self.response = response
        self.request = request
        self.channel = channel
        self.options = options
        self.clock = clock
        self.decoder = decoder
        self.ended = ended
        let reader = Task { [self] in await read() }
        var started = [reader]
        if let interval = options.pingInterval {
            started.append(Task { [self] in await keepAlive(every: interval) })
        }
        tasks.withLock { $0 = started }
    }

    // MARK: - Sending

    /// Sends `message`; returns once the transport has written it (a message
    /// whose send returned is on its way, not in a buffer of Courier's).
    /// - Throws: `CourierError.Code.webSocket` once the connection is
    ///   closing or closed (``WebSocketFailure/Kind/alreadyClosed``), or when
    ///   the write fails.
    func send(_ message: WebSocketMessage) async throws(CourierError) {
        try checkOpen()
        do {
            try await channel.send(.message(message))
        } catch {
            throw failure(from: error)
        }
        observe(.sent(text: message.isText, bytes: message.byteCount))
    }

    /// Tells the observing plugins.
    func observe(_ activity: WebSocketActivity) {
        for observer in observers { observer.webSocket(activity, context: context) }
    }

    /// Sends a ping and waits for its pong, at most ``WebSocketOptions/pongTimeout``.
    /// - Throws: `CourierError.Code.webSocket`: ``WebSocketFailure/Kind/pongTimeout``
    ///   (the connection is then dropped), or a closed connection.
    func ping() async throws(CourierError) {
        try checkOpen()
        let payload = Array("courier-\(UInt32.random(in: .min ... .max))".utf8)
        let wait = PongWait()
        let registered = state.withLock { state -> Bool in
            guard state.end == nil else { return false }
            state.pongWaiters[payload, default: []].append(wait)
            return true
        }
        guard registered else { throw .webSocket(WebSocketFailure.closed, request: request) }
        let sent = clock.now
        let timer = Task { [self, clock, options] in
            do { try await clock.sleep(for: options.pongTimeout) } catch { return }
            let late = state.withLock { $0.pongWaiters.removeValue(forKey: payload) ?? [] }
            let failure = WebSocketFailure(
                .pongTimeout, detail: "no pong within \(options.pongTimeout) of a ping")
            for waiter in late { waiter.fulfil(.failure(failure)) }
        }
        defer { timer.cancel() }
        do {
            try await channel.send(.ping(payload))
        } catch {
            state.withLock { $0.pongWaiters[payload] = nil }
            throw failure(from: error)
        }
        if case .failure(let failure) = await wait.value() {
            if failure.kind == .pongTimeout { finish(.failure(failure), abort: true) }
            throw .webSocket(failure, request: request)
        }
        observe(.pongReceived(roundTrip: clock.now - sent))
    }

    /// Closes the connection: sends `close`, waits for the peer's close at
    /// most ``WebSocketOptions/closeTimeout``, then ends the connection.
    /// ``messages`` ends normally. Closing twice, or after the peer closed,
    /// does nothing more.
    func close(_ close: WebSocketClose = .normal) async {
        let first = state.withLock { state -> Bool in
            guard state.end == nil, !state.closeSent else { return false }
            state.closeSent = true
            return true
        }
        if first {
            let code = WebSocketClose.maySend(close.code) ? close : .normal
            do {
                try await channel.send(.close(code))
            } catch {
                finish(.success(code), abort: true)
                return
            }
        }
        let timer = Task { [self] in
            try? await clock.sleep(for: options.closeTimeout)
            if !Task.isCancelled { finish(.success(close), abort: true) }
        }
        await waitForEnd()
        timer.cancel()
    }

    /// The close the peer sent, once it sent one.
    var peerClose: WebSocketClose? { state.withLock { $0.peerClose } }

    /// How the connection ended, once it did.
    var ending: Result<WebSocketClose?, CourierError>? { state.withLock { $0.end } }

    // MARK: - Receiving

    /// The next message; `nil` once the connection closed normally.
    /// - Throws: How the connection failed; `.cancelled` when the reading
    ///   task is cancelled (the connection stays open).
    func next() async throws(CourierError) -> WebSocketMessage? {
        let result: Result<WebSocketMessage?, CourierError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock {
                    state -> (Result<WebSocketMessage?, CourierError>, CheckedContinuation<Void, Never>?)? in
                    if !state.buffer.isEmpty {
                        let message = state.buffer.removeFirst()
                        let reader = state.readerWaiting
                        state.readerWaiting = nil
                        return (.success(message), reader)
                    }
                    if let end = state.end { return (end.map { _ in nil }, nil) }
                    if Task.isCancelled { return (.failure(Self.cancelled(request)), nil) }
                    state.consumer = continuation
                    return nil
                }
                if let (value, reader) = ready {
                    reader?.resume()
                    continuation.resume(returning: value)
                }
            }
        } onCancel: {
            let consumer = state.withLock { state in
                defer { state.consumer = nil }
                return state.consumer
            }
            consumer?.resume(returning: .failure(Self.cancelled(request)))
        }
        return try result.get()
    }

    private static func cancelled(_ request: HTTPRequest?) -> CourierError {
        CourierError(
            .cancelled, stage: .transport, message: "reading the WebSocket was cancelled", request: request)
    }

    // MARK: - The connection's own tasks

    /// Reads the connection until it ends.
    private func read() async {
        while true {
            let inbound: WebSocketInbound?
            do {
                inbound = try await channel.receive()
            } catch let failure as WebSocketFailure {
                if let close = failure.close { try? await channel.send(.close(close)) }
                return finish(.failure(failure), abort: true)
            } catch {
                return finish(
                    .failure(WebSocketFailure(.closedAbnormally, detail: "the connection broke: \(error)")),
                    abort: true)
            }
            state.withLock { $0.lastHeard = clock.now }
            switch inbound {
            case nil:
                let closed = state.withLock { $0.closeSent || $0.peerClose != nil }
                return finish(
                    closed
                        ? .success(nil)
                        : .failure(
                            WebSocketFailure(
                                .closedAbnormally, detail: "the connection ended without a close frame")),
                    abort: true)
            case .ping(let payload)?:
                try? await channel.send(.pong(payload))
            case .pong(let payload)?:
                let waiters = state.withLock { $0.pongWaiters.removeValue(forKey: payload) ?? [] }
                for waiter in waiters { waiter.fulfil(.success(())) }
            case .close(let close)?:
                let answer = state.withLock { state -> Bool in
                    state.peerClose = close
                    defer { state.closeSent = true }
                    return !state.closeSent
                }
                // RFC 6455 §5.5.1: answer with the same code (or none).
                if answer { try? await channel.send(.close(close ?? .normal)) }
                let normal = close == nil || close?.code == 1000 || close?.code == 1001
                return finish(
                    normal
                        ? .success(close)
                        : .failure(
                            WebSocketFailure(
                                .closedByPeer, close: close,
                                detail: "the peer closed with \(close?.description ?? "")")),
                    abort: true)
            case .text(let bytes)?:
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    let close = WebSocketClose(code: 1007, reason: "text is not UTF-8")
                    try? await channel.send(.close(close))
                    return finish(
                        .failure(
                            WebSocketFailure(
                                .invalidUTF8, close: close, detail: "a text message is not UTF-8")),
                        abort: true)
                }
                observe(.received(text: true, bytes: bytes.count))
                await deliver(.text(text))
            case .binary(let bytes)?:
                observe(.received(text: false, bytes: bytes.count))
                await deliver(.binary(bytes))
            }
        }
    }

    /// Hands `message` to the app, waiting while the buffer is full.
    private func deliver(_ message: WebSocketMessage) async {
        await withCheckedContinuation { (room: CheckedContinuation<Void, Never>) in
            let handed = state.withLock {
                state -> (CheckedContinuation<Result<WebSocketMessage?, CourierError>, Never>?, Bool) in
                state.received += Int64(message.byteCount)
                state.messages += 1
                if let consumer = state.consumer {
                    state.consumer = nil
                    return (consumer, true)
                }
                state.buffer.append(message)
                if state.buffer.count < options.bufferedMessages { return (nil, true) }
                state.readerWaiting = room
                return (nil, false)
            }
            handed.0?.resume(returning: .success(message))
            if handed.1 { room.resume() }
        }
    }

    /// Pings when the connection has been quiet for `interval`; drops it
    /// when a ping goes unanswered.
    private func keepAlive(every interval: Duration) async {
        while !Task.isCancelled {
            do { try await clock.sleep(for: interval) } catch { return }
            let (quietFor, full, ended) = state.withLock { state in
                (clock.now - state.lastHeard, state.readerWaiting != nil, state.end != nil)
            }
            if ended { return }
            // Data arrived lately, or the app holds it back: the peer is there.
            guard quietFor >= interval, !full else { continue }
            do { try await ping() } catch { return }
        }
    }

    /// Ends the connection once: `messages` ends (or throws), waiters wake,
    /// the transport's connection is dropped, the call reports its end.
    func finish(_ end: Result<WebSocketClose?, WebSocketFailure>, abort: Bool) {
        let woken = state.withLock { state -> (WebSocketState.Woken, StreamSummary)? in
            guard state.end == nil else { return nil }
            state.end = end.mapError { CourierError.webSocket($0, request: request) }
            return (state.takeWaiters(), StreamSummary(bytes: state.received, chunks: state.messages))
        }
        guard let (waiters, summary) = woken else { return }
        if abort { channel.abort() }
        let error: CourierError?
        if case .failure(let failure) = end {
            error = .webSocket(failure, request: request)
        } else {
            error = nil
        }
        let delivered: Result<WebSocketMessage?, CourierError> = error.map { .failure($0) } ?? .success(nil)
        waiters.consumer?.resume(returning: delivered)
        waiters.reader?.resume()
        for pong in waiters.pongs { pong.fulfil(.failure(WebSocketFailure.closed)) }
        for waiter in waiters.ends { waiter.resume() }
        for task in tasks.withLock({ $0 }) { task.cancel() }
        let ended = self.ended
        Task { await ended(summary, error) }
    }

    private func waitForEnd() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.end != nil { return true }
                state.endWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func checkOpen() throws(CourierError) {
        let open = state.withLock { $0.end == nil && !$0.closeSent }
        guard open else {
            throw .webSocket(
                WebSocketFailure(.alreadyClosed, detail: "the connection is closed"), request: request)
        }
    }

    private func failure(from error: any Error) -> CourierError {
        if let error = error as? CourierError { return error }
        if let failure = error as? WebSocketFailure { return .webSocket(failure, request: request) }
        if error is CancellationError {
            return CourierError(.cancelled, stage: .transport, message: "cancelled", request: request)
        }
        return .webSocket(
            WebSocketFailure(.closedAbnormally, detail: "the connection broke: \(error)"), request: request)
    }
}
