@_spi(Locking) import CourierCore

/// Work the cache started and ``ResponseCache/settle()`` waits for.
final class PendingWork: Sendable {
    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Runs `body` in a task of its own, counted until it ends.
    func run(_ body: @escaping @Sendable () async -> Void) {
        state.withLock { $0.running += 1 }
        Task {
            await body()
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.running -= 1
                guard state.running == 0 else { return [] }
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Returns once nothing runs (at once when nothing does).
    func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.running == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
