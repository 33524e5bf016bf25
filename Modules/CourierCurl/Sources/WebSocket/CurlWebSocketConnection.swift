import CCurl
@_spi(Locking) @_spi(Transport) import CourierCore
import CourierWebSocket
import Foundation
import HTTPTypes
import Synchronization

/// One WebSocket connection on libcurl, and the thread that owns its easy
/// handle: the thread sends the handshake (`curl_easy_perform` with
/// `CURLOPT_CONNECT_ONLY` 2), then waits on the socket and on a wake-up pipe,
/// reading frames while the app has room for them and writing what the app
/// sends. Callers talk to it only through the locked ``CurlWebSocketMailbox``.
final class CurlWebSocketConnection: WebSocketChannel, Sendable {
    private let mailbox = Locked(CurlWebSocketMailbox())
    private let wake: CurlWakePipe
    private let limits: WebSocketLimits
    /// Set to abort the handshake (read by libcurl's progress callback).
    private let cancelled: CurlCancelFlag
    /// The subprotocol the server chose; set once before `open()` returns.
    private let chosen = Locked<String?>(nil)

    var subprotocol: String? { chosen.withLock { $0 } }

    init(limits: WebSocketLimits) {
        self.limits = limits
        self.wake = CurlWakePipe()
        self.cancelled = CurlCancelFlag()
    }

    deinit { abort() }

    /// Starts the connection's thread with `transfer` (set up for the
    /// handshake) and waits for the handshake's answer.
    func open(_ transfer: UncheckedWebSocketTransfer) async throws -> WebSocketOpening {
        guard wake.isOpen else {
            throw TransportError(
                .other, "a pipe for the WebSocket's thread could not be made (errno \(errno))")
        }
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { [self] in
                _ = courier_name_current_thread("courier-ws")
                run(transfer.transfer, answering: continuation)
            }
            thread.start()
        }
    }

    /// Aborts a handshake in progress (the opening task was cancelled).
    func cancelOpening() { cancelled.set() }

    // MARK: - WebSocketChannel (any task)

    func receive() async throws -> WebSocketInbound? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<WebSocketInbound?, any Error>) in
                let (ready, wakeThread) = mailbox.withLock {
                    mailbox -> (Result<WebSocketInbound?, any Error>?, Bool) in
                    if !mailbox.inbound.isEmpty {
                        let wasFull = mailbox.inbound.count >= limits.bufferedMessages
                        return (.success(mailbox.inbound.removeFirst()), wasFull)
                    }
                    if let end = mailbox.end { return (end.map { nil }, false) }
                    mailbox.receiver = continuation
                    return (nil, false)
                }
                if wakeThread { wake.signal() }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            mailbox.withLock { mailbox in
                defer { mailbox.receiver = nil }
                return mailbox.receiver
            }?.resume(throwing: CancellationError())
        }
    }

    func send(_ frame: WebSocketOutbound) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let accepted = mailbox.withLock { mailbox -> Bool in
                guard !mailbox.aborted, !mailbox.threadDone else { return false }
                mailbox.outbound.append(CurlWebSocketMailbox.Sending(frame: frame, sent: continuation))
                return true
            }
            if accepted {
                wake.signal()
            } else {
                continuation.resume(
                    throwing: TransportError(.cancelled, "the WebSocket connection is closed"))
            }
        }
    }

    func abort() {
        let first = mailbox.withLock { mailbox -> Bool in
            defer { mailbox.aborted = true }
            return !mailbox.aborted
        }
        if first {
            cancelled.set()
            wake.signal()
        }
    }

    // MARK: - The connection's thread

    /// The thread's life: the handshake, then frames until the connection
    /// ends or is aborted; everything waiting is answered before it returns.
    private func run(
        _ transfer: CurlTransfer, answering opened: CheckedContinuation<WebSocketOpening, any Error>
    ) {
        let handshake = CurlWebSocketHandshake(transfer: transfer, limits: limits, cancelled: cancelled)
        switch handshake.perform() {
        case .failure(let error):
            finishThread(with: .failure(error))
            opened.resume(throwing: error)
        case .success(.refused(let response, let body)):
            finishThread(with: .success(()))
            opened.resume(
                returning: WebSocketOpening(
                    head: response, channel: nil, body: ResponseBodyStream(bytes: body)))
        case .success(.upgraded(let response, let subprotocol, let socket)):
            chosen.withLock { $0 = subprotocol }
            opened.resume(
                returning: WebSocketOpening(
                    head: response, channel: self, body: ResponseBodyStream(bytes: [])))
            var frames = CurlWebSocketFrames(handle: transfer.handle, limits: limits)
            let end = loop(&frames, socket: socket)
            frames.failUnsent()
            finishThread(with: end)
        }
        // The easy handle (and its socket) goes with the transfer; a capacity
        // of 0 keeps its pool from holding it.
        withExtendedLifetime(transfer) {}
        wake.close()
    }

    /// Reads and writes until the connection ends; returns how it ended.
    private func loop(_ frames: inout CurlWebSocketFrames, socket: Int32) -> Result<Void, any Error> {
        var readFailed = false
        while true {
            let (outbound, aborted, room) = mailbox.withLock { mailbox in
                defer { mailbox.outbound = [] }
                return (mailbox.outbound, mailbox.aborted, limits.bufferedMessages - mailbox.inbound.count)
            }
            if aborted { return .success(()) }
            frames.queue(outbound)
            if let failure = frames.flush() { return .failure(failure) }
            if room > 0, !readFailed {
                switch frames.read(upTo: room) {
                case .messages(let messages):
                    deliver(messages)
                case .ended(let messages):
                    deliver(messages)
                    return .success(())
                case .failed(let messages, let error):
                    // A limit or a protocol violation: the session sends its
                    // close and then aborts; writing goes on until then.
                    deliver(messages)
                    endInbound(with: .failure(error))
                    readFailed = true
                }
            }
            let stillRoom = mailbox.withLock { $0.inbound.count < limits.bufferedMessages }
            wake.wait(
                on: socket, readable: stillRoom && !readFailed && !frames.hasBufferedInput,
                writable: frames.isWaitingToWrite, immediately: frames.hasBufferedInput && stillRoom)
        }
    }

    /// Hands messages to a waiting receiver, or to the buffer.
    private func deliver(_ messages: [WebSocketInbound]) {
        guard !messages.isEmpty else { return }
        let handed = mailbox.withLock {
            mailbox -> (CheckedContinuation<WebSocketInbound?, any Error>, WebSocketInbound)? in
            mailbox.inbound.append(contentsOf: messages)
            guard let receiver = mailbox.receiver else { return nil }
            mailbox.receiver = nil
            return (receiver, mailbox.inbound.removeFirst())
        }
        if let (receiver, first) = handed { receiver.resume(returning: first) }
    }

    private func endInbound(with end: Result<Void, any Error>) {
        let receiver = mailbox.withLock { mailbox -> CheckedContinuation<WebSocketInbound?, any Error>? in
            if mailbox.end == nil { mailbox.end = end }
            guard mailbox.inbound.isEmpty, let receiver = mailbox.receiver else { return nil }
            mailbox.receiver = nil
            return receiver
        }
        receiver?.resume(with: end.map { nil })
    }

    /// The thread is done: no more sends are taken, those queued fail, a
    /// waiting receiver hears the end.
    private func finishThread(with end: Result<Void, any Error>) {
        endInbound(with: end)
        let unsent = mailbox.withLock { mailbox in
            mailbox.threadDone = true
            defer { mailbox.outbound = [] }
            return mailbox.outbound
        }
        for sending in unsent {
            sending.sent.resume(throwing: TransportError(.cancelled, "the WebSocket connection is closed"))
        }
    }
}

/// What callers and the connection's thread share, under one lock.
struct CurlWebSocketMailbox {
    struct Sending {
        let frame: WebSocketOutbound
        let sent: CheckedContinuation<Void, any Error>
    }
    /// Messages read ahead of the app, at most `bufferedMessages`.
    var inbound: [WebSocketInbound] = []
    /// A reader waiting for the next message.
    var receiver: CheckedContinuation<WebSocketInbound?, any Error>?
    /// How reading ended, once it did (after `inbound` is drained).
    var end: Result<Void, any Error>?
    /// Frames to send, in order.
    var outbound: [Sending] = []
    /// The app dropped the connection.
    var aborted = false
    /// The thread returned: nothing more is sent.
    var threadDone = false
}

/// Carries the transfer to the connection's thread.
struct UncheckedWebSocketTransfer: @unchecked Sendable {
    // Safe: made on the opening task, handed once to `open(_:)`, which gives
    // it to the connection's thread; from then on only that thread touches
    // it and the easy handle inside it.
    let transfer: CurlTransfer
}
