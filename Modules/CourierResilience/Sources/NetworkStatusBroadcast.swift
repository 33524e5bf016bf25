@_spi(Locking) import CourierCore

/// A monitor's current ``NetworkStatus`` and the streams that follow it
/// (``NetworkMonitor/statusUpdates()``): what every monitor that is told of
/// changes keeps, in one place.
package final class NetworkStatusBroadcast: Sendable {
    private struct State {
        var status: NetworkStatus
        var subscribers: [UInt64: AsyncStream<NetworkStatus>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
    }

    private let state: Locked<State>

    /// Starts with `status`.
    package init(_ status: NetworkStatus) {
        state = Locked(State(status: status))
    }

    /// The status as last published.
    package var status: NetworkStatus { state.withLock { $0.status } }

    /// How many streams are being read.
    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Makes `status` current and tells every stream, when it changed.
    package func publish(_ status: NetworkStatus) {
        let subscribers = state.withLock { state -> [AsyncStream<NetworkStatus>.Continuation] in
            guard state.status != status else { return [] }
            state.status = status
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(status) }
    }

    /// The current status, then every change, until ``finish()`` or the reader stops.
    package func updates() -> AsyncStream<NetworkStatus> {
        AsyncStream { continuation in
            let id = state.withLock { state in
                defer { state.nextSubscriber += 1 }
                state.subscribers[state.nextSubscriber] = continuation
                continuation.yield(state.status)
                return state.nextSubscriber
            }
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
            }
        }
    }

    /// Ends every stream; ``status`` keeps the last state.
    package func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
