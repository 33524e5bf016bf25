@_spi(Locking) import CourierCore
import Foundation
import HTTPTypes

/// A ``WebSocket``'s current connection, and its replacement when the
/// connection is lost and ``WebSocketReconnection`` is set: one reconnect at
/// a time, started by whichever of the reader and a sender notices first,
/// awaited by both.
final class WebSocketLink: Sendable {
    /// Opens a new connection through the pipeline (the same endpoint,
    /// options and plugins).
    typealias Reopen = @Sendable () async throws(CourierError) -> WebSocketSession

    private struct State {
        var session: WebSocketSession
        /// The reconnect under way, and the connection it replaces.
        var reconnecting: Task<Result<Void, CourierError>, Never>?
        /// The app closed: nothing reconnects any more.
        var closedByApp = false
        /// Connections lost in a row without a message between them, and
        /// when the first of them was lost.
        var streak = 0
        var streakStart: Duration?
        var reconnections = 0
    }

    private let state: Locked<State>
    let reconnection: WebSocketReconnection?
    private let reopen: Reopen
    private let clock: any CourierClock

    init(
        first: WebSocketSession, reconnection: WebSocketReconnection?, clock: any CourierClock,
        reopen: @escaping Reopen
    ) {
        state = Locked(State(session: first))
        self.reconnection = reconnection
        self.clock = clock
        self.reopen = reopen
    }

    /// The connection in use now.
    var session: WebSocketSession { state.withLock { $0.session } }

    /// Connections opened again after one was lost.
    var reconnections: Int { state.withLock { $0.reconnections } }

    /// The next message, across reconnects.
    func next(_ socket: WebSocket) async throws(CourierError) -> WebSocketMessage? {
        while true {
            let session = self.session
            let outcome: Result<WebSocketMessage?, CourierError>
            do {
                outcome = .success(try await session.next())
            } catch {
                outcome = .failure(error)
            }
            if case .success(let message?) = outcome {
                state.withLock {
                    $0.streak = 0
                    $0.streakStart = nil
                }
                return message
            }
            guard isLost(session) else { return try outcome.get() }
            try await restore(replacing: session, socket)
        }
    }

    /// Sends on the current connection; when it was lost, waits for its
    /// replacement and sends there.
    func send(_ message: WebSocketMessage, _ socket: WebSocket) async throws(CourierError) {
        let session = self.session
        do {
            try await session.send(message)
        } catch {
            // A send from `resume` must not wait for the reconnect that runs it.
            guard !Self.resuming, isLost(session) else { throw error }
            try await restore(replacing: session, socket)
            try await self.session.send(message)
        }
    }

    /// The app closes: no reconnect from now on; one under way is cancelled.
    func close(_ close: WebSocketClose) async {
        let (session, reconnecting) = state.withLock { state in
            state.closedByApp = true
            return (state.session, state.reconnecting)
        }
        reconnecting?.cancel()
        await session.close(close)
    }

    /// Whether `session` ended in a way that reconnection restores.
    private func isLost(_ session: WebSocketSession) -> Bool {
        guard reconnection != nil, let end = session.ending else { return false }
        return !state.withLock { $0.closedByApp } && WebSocketReconnection.isLost(end)
    }

    /// Replaces `lost` (once, whoever asks first), or throws why it could not.
    private func restore(replacing lost: WebSocketSession, _ socket: WebSocket) async throws(CourierError) {
        let task = state.withLock { state -> Task<Result<Void, CourierError>, Never>? in
            if state.session !== lost { return nil }  // replaced already
            // One reconnect at a time: a connection it opened and lost while
            // resuming is its own business.
            if let running = state.reconnecting { return running }
            let task = Task { await self.reconnect(after: lost, socket) }
            state.reconnecting = task
            return task
        }
        guard let task else { return }
        try await task.value.get()
    }

    /// Opens connections as the policy allows until one is up and resumed.
    private func reconnect(after lost: WebSocketSession, _ socket: WebSocket) async -> Result<
        Void, CourierError
    > {
        guard let reconnection, let end = lost.ending else { return .success(()) }
        // Why the lost connection ended, as the policy reads it: a reset.
        var failure: CourierError =
            switch end {
            case .failure(let error): error
            case .success(let close):
                .webSocket(
                    WebSocketFailure(
                        .closedByPeer, close: close,
                        detail: "the server closed with \(close.map(\.description) ?? "")"),
                    request: lost.request)
            }
        while true {
            let (attempt, start, closed) = state.withLock { state in
                state.streak += 1
                if state.streakStart == nil { state.streakStart = clock.now }
                return (state.streak, state.streakStart ?? clock.now, state.closedByApp)
            }
            if closed { return .failure(failure) }
            let asked = failure.code == .webSocket ? Self.asReset(failure) : failure
            let decision = reconnection.policy.decide(
                after: asked, attempt: attempt, method: .get, bodyIsReplayable: true,
                elapsed: clock.now - start,
                now: clock.date)
            guard case .retry(let delay) = decision else { return .failure(failure) }
            do {
                try await clock.sleep(for: delay)
            } catch {
                return .failure(
                    CourierError(.cancelled, stage: .retry, message: "reconnecting was cancelled"))
            }
            if state.withLock({ $0.closedByApp }) { return .failure(failure) }
            let opened: WebSocketSession
            do {
                opened = try await reopen()
            } catch {
                failure = error
                continue
            }
            let installed = state.withLock { state -> Bool in
                guard !state.closedByApp else { return false }
                state.session = opened
                state.reconnections += 1
                return true
            }
            guard installed else {
                await opened.close(.goingAway)
                return .failure(failure)
            }
            opened.observe(.reconnected(count: state.withLock { $0.reconnections }))
            do {
                try await Self.$resuming.withValue(true) { try await reconnection.resume(socket) }
            } catch {
                // The resume failed: this connection does not count; the next may.
                let broken = WebSocketFailure(.closedAbnormally, detail: "resuming failed: \(error)")
                opened.finish(.failure(broken), abort: true)
                failure = (error as? CourierError) ?? .webSocket(broken, request: opened.request)
                continue
            }
            state.withLock { $0.reconnecting = nil }
            return .success(())
        }
    }

    /// Set while `resume` runs (on its task).
    @TaskLocal static var resuming = false

    /// A lost connection as the retry policy reads it: a reset connection.
    private static func asReset(_ failure: CourierError) -> CourierError {
        CourierError(
            .transport, stage: .transport, message: failure.message, request: failure.request,
            underlying: TransportError(.connectionReset, "the WebSocket connection was lost"))
    }
}
