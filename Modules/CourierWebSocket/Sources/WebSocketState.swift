@_spi(Locking) import CourierCore

/// What ``WebSocket`` keeps under its lock.
struct WebSocketState: Sendable {
    var buffer: [WebSocketMessage] = []
    var consumer: CheckedContinuation<Result<WebSocketMessage?, CourierError>, Never>?
    var readerWaiting: CheckedContinuation<Void, Never>?
    var pongWaiters: [[UInt8]: [PongWait]] = [:]
    var endWaiters: [CheckedContinuation<Void, Never>] = []
    /// How the connection ended: the close (normal), or the failure.
    var end: Result<WebSocketClose?, CourierError>?
    var peerClose: WebSocketClose?
    var closeSent = false
    var lastHeard: Duration = .zero
    var received: Int64 = 0
    var messages = 0

    struct Woken {
        var consumer: CheckedContinuation<Result<WebSocketMessage?, CourierError>, Never>?
        var reader: CheckedContinuation<Void, Never>?
        var pongs: [PongWait]
        var ends: [CheckedContinuation<Void, Never>]
    }

    mutating func takeWaiters() -> Woken {
        defer {
            consumer = nil
            readerWaiting = nil
            pongWaiters = [:]
            endWaiters = []
        }
        return Woken(
            consumer: consumer, reader: readerWaiting, pongs: pongWaiters.values.flatMap { $0 },
            ends: endWaiters)
    }
}

extension WebSocketFailure {
    static let closed = WebSocketFailure(.alreadyClosed, detail: "the connection closed")
}

/// One ping's wait for its pong: fulfilled by the reader (the pong), the
/// timer (too late) or the end of the connection, whichever comes first.
final class PongWait: Sendable {
    private typealias Waiter = CheckedContinuation<Result<Void, WebSocketFailure>, Never>
    private let state = Locked<(result: Result<Void, WebSocketFailure>?, waiter: Waiter?)>((nil, nil))

    func fulfil(_ result: Result<Void, WebSocketFailure>) {
        let waiter = state.withLock { state -> Waiter? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    func value() async -> Result<Void, WebSocketFailure> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Void, WebSocketFailure>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
