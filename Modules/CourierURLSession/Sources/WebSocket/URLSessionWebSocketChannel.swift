@_spi(Locking) @_spi(Transport) import CourierCore
import CourierWebSocket
import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One `URLSessionWebSocketTask` as a ``/CourierWebSocket/WebSocketChannel``:
/// the session's delegate reports the opening and the end, and messages are
/// read with `receive(completionHandler:)` only while the app has room for
/// them (``WebSocketLimits/bufferedMessages``), so a slow reader leaves
/// the rest to the task.
final class URLSessionWebSocketChannel: WebSocketChannel, Sendable {
    private let task: URLSessionWebSocketTask
    private let limits: WebSocketLimits
    private let cancelTask: @Sendable (URLSessionTask) -> Void
    private let state = Locked(State())

    private struct State {
        /// The opening task, until the handshake is answered.
        var opening: CheckedContinuation<WebSocketOpening, any Error>?
        var subprotocol: String?
        /// What was read ahead of the app.
        var inbound: [WebSocketInbound] = []
        /// A reader waiting for the next message.
        var receiver: CheckedContinuation<WebSocketInbound?, any Error>?
        /// How reading ended, once it did (after `inbound` is drained).
        var end: Result<Void, any Error>?
        /// A `receive` is outstanding on the task.
        var reading = false
        /// Courier sent its close: the task's end is that close's.
        var closeSent = false
        /// The peer's close was queued.
        var peerClosed = false
    }

    init(
        task: URLSessionWebSocketTask, limits: WebSocketLimits,
        cancel: @escaping @Sendable (URLSessionTask) -> Void
    ) {
        self.task = task
        self.limits = limits
        self.cancelTask = cancel
    }

    var subprotocol: String? { state.withLock { $0.subprotocol } }

    /// Starts the task and waits for the handshake's answer.
    func open() async throws -> WebSocketOpening {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { $0.opening = continuation }
            task.resume()
        }
    }

    // MARK: - The session's delegate

    /// `101`: the connection is open.
    func opened() {
        guard let http = task.response as? HTTPURLResponse else {
            return failOpening(TransportError(.protocolError, "the WebSocket handshake has no HTTP response"))
        }
        let head = HTTPResponse(status: .init(code: http.statusCode), headerFields: TaskState.fields(http))
        let chosen = head.headerFields[.secWebSocketProtocol]
        if let chosen, !limits.subprotocols.contains(chosen) {
            return failOpening(
                TransportError(
                    .protocolError, "the server chose the subprotocol \(chosen), which was not offered"))
        }
        let opening = state.withLock { state in
            state.subprotocol = chosen
            state.reading = true
            defer { state.opening = nil }
            return state.opening
        }
        opening?.resume(
            returning: WebSocketOpening(head: head, channel: self, body: ResponseBodyStream(bytes: [])))
        readNext()
    }

    /// The peer's close frame (Apple's URLSession reports it here).
    func peerClosed(code: Int, reason: Data?) {
        let close = WebSocketClose(
            code: UInt16(clamping: code), reason: String(decoding: reason ?? Data(), as: UTF8.self))
        let handed = state.withLock { state -> CheckedContinuation<WebSocketInbound?, any Error>? in
            guard !state.closeSent, !state.peerClosed, state.end == nil else { return nil }
            state.peerClosed = true
            guard let receiver = state.receiver else {
                state.inbound.append(.close(close))
                return nil
            }
            state.receiver = nil
            return receiver
        }
        handed?.resume(returning: .close(close))
    }

    /// The task ended: before the handshake was answered (a refusal comes
    /// back as its response), or after (the connection ended).
    func ended(error: (any Error)?) {
        let opening = state.withLock { state in
            defer { state.opening = nil }
            return state.opening
        }
        if let opening {
            if let http = task.response as? HTTPURLResponse, http.statusCode != 101 {
                let head = HTTPResponse(
                    status: .init(code: http.statusCode), headerFields: TaskState.fields(http))
                opening.resume(
                    returning: WebSocketOpening(head: head, channel: nil, body: ResponseBodyStream(bytes: []))
                )
            } else {
                opening.resume(throwing: Self.transportError(error))
            }
            return
        }
        finishReading(error: error)
    }

    // MARK: - WebSocketChannel (any task)

    func receive() async throws -> WebSocketInbound? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<WebSocketInbound?, any Error>) in
                let (ready, resumeReading) = state.withLock {
                    state -> (Result<WebSocketInbound?, any Error>?, Bool) in
                    if !state.inbound.isEmpty {
                        // Taking from a full buffer makes room: read on.
                        let resume = !state.reading && state.end == nil && !state.peerClosed
                        if resume { state.reading = true }
                        return (.success(state.inbound.removeFirst()), resume)
                    }
                    if let end = state.end { return (end.map { nil }, false) }
                    state.receiver = continuation
                    return (nil, false)
                }
                if resumeReading { readNext() }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.receiver = nil }
                return state.receiver
            }?.resume(throwing: CancellationError())
        }
    }

    func send(_ frame: WebSocketOutbound) async throws {
        switch frame {
        case .message(.text(let text)):
            try await sendMessage(.string(text))
        case .message(.binary(let bytes)):
            try await sendMessage(.data(Data(bytes)))
        case .ping(let payload):
            // Foundation's ping carries no payload; its pong is this one's.
            task.sendPing { [self] error in
                if error == nil { deliver(.pong(payload)) }
            }
        case .pong:
            // Foundation answers the server's pings itself and never shows them.
            break
        case .close(let close):
            state.withLock { $0.closeSent = true }
            let code = URLSessionWebSocketTask.CloseCode(rawValue: Int(close.code)) ?? .normalClosure
            task.cancel(with: code, reason: close.reason.isEmpty ? nil : Data(close.reason.utf8))
        }
    }

    func abort() {
        failOpening(TransportError(.cancelled, "the WebSocket opening was cancelled"))
        cancelTask(task)
    }

    // MARK: - Reading

    private func sendMessage(_ message: URLSessionWebSocketTask.Message) async throws {
        do {
            try await task.send(message)
        } catch {
            throw Self.transportError(error)
        }
    }

    /// Asks the task for the next message; the caller has set `reading`.
    private func readNext() {
        task.receive { [self] result in
            switch result {
            case .success(let message):
                received(message)
            case .failure(let error):
                state.withLock { $0.reading = false }
                finishReading(error: error)
            }
        }
    }

    private func received(_ message: URLSessionWebSocketTask.Message) {
        let inbound: WebSocketInbound
        let size: Int
        switch message {
        case .string(let text):
            inbound = .text(Array(text.utf8))
            size = text.utf8.count
        case .data(let data):
            inbound = .binary(Array(data))
            size = data.count
        @unknown default:
            state.withLock { $0.reading = false }
            return endReading(
                .failure(WebSocketFailure.protocolViolation("a message of a kind Foundation added")))
        }
        if size > limits.maxMessageSize {
            state.withLock { $0.reading = false }
            return endReading(
                .failure(
                    WebSocketFailure.messageTooLarge(
                        "a message of \(size) bytes, over the limit of \(limits.maxMessageSize)")))
        }
        deliver(inbound)
        let more = state.withLock { state -> Bool in
            let room = state.inbound.count < limits.bufferedMessages && state.end == nil && !state.peerClosed
            state.reading = room
            return room
        }
        if more { readNext() }
    }

    /// Hands `inbound` to a waiting reader, or to the buffer.
    private func deliver(_ inbound: WebSocketInbound) {
        let receiver = state.withLock { state -> CheckedContinuation<WebSocketInbound?, any Error>? in
            guard let receiver = state.receiver else {
                state.inbound.append(inbound)
                return nil
            }
            state.receiver = nil
            return receiver
        }
        receiver?.resume(returning: inbound)
    }

    /// The task stopped reading: after Courier's close that is the end; after
    /// the peer's close frame (Linux reports it as the task's code) its close,
    /// then the end; otherwise the connection broke.
    private func finishReading(error: (any Error)?) {
        let (closeSent, peerCloseQueued) = state.withLock { ($0.closeSent, $0.peerClosed) }
        if closeSent || peerCloseQueued { return endReading(.success(())) }
        if task.closeCode != .invalid {
            peerClosed(code: task.closeCode.rawValue, reason: task.closeReason)
            return endReading(.success(()))
        }
        if let error, Self.isMessageTooLong(error) {
            return endReading(
                .failure(
                    WebSocketFailure.messageTooLarge(
                        "a message over the limit of \(limits.maxMessageSize) bytes")))
        }
        endReading(
            .failure(error.map(Self.transportError) ?? TransportError(.other, "the WebSocket task ended")))
    }

    private func endReading(_ end: Result<Void, any Error>) {
        let receiver = state.withLock { state -> CheckedContinuation<WebSocketInbound?, any Error>? in
            if state.end == nil { state.end = end }
            guard state.inbound.isEmpty, let receiver = state.receiver else { return nil }
            state.receiver = nil
            return receiver
        }
        receiver?.resume(with: end.map { nil })
    }

    private func failOpening(_ error: TransportError) {
        let opening = state.withLock { state in
            defer { state.opening = nil }
            return state.opening
        }
        guard let opening else { return }
        opening.resume(throwing: error)
        cancelTask(task)
    }

    /// Apple's URLSession fails a receive over `maximumMessageSize` with EMSGSIZE.
    private static func isMessageTooLong(_ error: any Error) -> Bool {
        let error = error as NSError
        return error.domain == NSPOSIXErrorDomain && error.code == Int(EMSGSIZE)
    }

    /// A failure before the connection opened, as a transport error;
    /// Foundation's "WebSockets not supported" as `.unsupported`.
    private static func transportError(_ error: (any Error)?) -> TransportError {
        guard let error else { return TransportError(.other, "the WebSocket task ended before it opened") }
        let mapped = URLErrorMapping.map(error)
        if let urlError = error as? URLError, urlError.code == .unsupportedURL,
            urlError.localizedDescription.lowercased().contains("websocket")
        {
            return TransportError(.unsupported, "URLSessionTransport: \(urlError.localizedDescription)")
        }
        return mapped
    }
}
