#if AsyncHTTPClient
    @_spi(Locking) import CourierCore

    /// Lets at most `limit` HTTP/1 exchanges per origin into async-http-client
    /// at once; the others wait here, first come first served, for as long as
    /// their own deadline allows.
    ///
    /// Why: async-http-client queues a request that finds every connection of
    /// its host busy, and fails it with `getConnectionFromPoolTimeout` once the
    /// *connect* timeout (10 s) has passed — whatever the request's own
    /// deadline. Nine slow calls to one host would fail the ninth after 10 s
    /// although its timeout is a minute. Waiting here instead gives the
    /// semantics of every other transport (libcurl queues a transfer over
    /// `CURLMOPT_MAX_HOST_CONNECTIONS` until its own timeout): a call waits for
    /// a connection within its total deadline, and cancelling it stops the
    /// wait at once.
    final class AHCHostAdmission: Sendable {
        private struct Waiter {
            let id: UInt64
            let continuation: CheckedContinuation<Void, any Error>
        }

        private struct Origin {
            var admitted = 0
            var waiters: [Waiter] = []
        }

        private struct State {
            var origins: [String: Origin] = [:]
            /// Waiters cancelled before they were queued.
            var cancelled: Set<UInt64> = []
            var nextID: UInt64 = 0
        }

        /// The most exchanges admitted per origin.
        let limit: Int
        private let state = Locked(State())

        init(limit: Int) {
            self.limit = max(1, limit)
        }

        /// Runs `body` once fewer than ``limit`` exchanges for `origin` are running.
        /// - Throws: `CancellationError` when the task is cancelled while waiting;
        ///   whatever `body` throws.
        func withSlot<T: Sendable>(for origin: String, _ body: () async throws -> T) async throws -> T {
            try await admit(origin)
            defer { leave(origin) }
            return try await body()
        }

        /// Exchanges admitted and exchanges waiting, over every origin.
        var load: (active: Int, waiting: Int) {
            state.withLock { state in
                state.origins.values.reduce(into: (active: 0, waiting: 0)) { sum, origin in
                    sum.active += origin.admitted
                    sum.waiting += origin.waiters.count
                }
            }
        }

        /// Waits for a slot for `origin`, which the caller gives back with
        /// ``leave(_:)`` once its exchange is over: for a streamed body, which
        /// holds its connection after the head has returned.
        /// - Throws: `CancellationError` when the task is cancelled while waiting.
        func admit(_ origin: String) async throws {
            let id = state.withLock { state in
                state.nextID += 1
                return state.nextID
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<Void, any Error>) in
                    enum Decision { case admitted, cancelled, queued }
                    let decision = state.withLock { state -> Decision in
                        if state.cancelled.remove(id) != nil { return .cancelled }
                        var entry = state.origins[origin] ?? Origin()
                        defer { state.origins[origin] = entry }
                        if entry.admitted < limit {
                            entry.admitted += 1
                            return .admitted
                        }
                        entry.waiters.append(Waiter(id: id, continuation: continuation))
                        return .queued
                    }
                    switch decision {
                    case .admitted: continuation.resume()
                    case .cancelled: continuation.resume(throwing: CancellationError())
                    case .queued: break
                    }
                }
            } onCancel: {
                let waiter = state.withLock { state -> Waiter? in
                    if let index = state.origins[origin]?.waiters.firstIndex(where: { $0.id == id }) {
                        return state.origins[origin]?.waiters.remove(at: index)
                    }
                    // Not queued yet (or already admitted): the continuation's
                    // closure sees the mark; an admitted waiter drops it.
                    state.cancelled.insert(id)
                    return nil
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
            // Admitted: a mark left by a cancellation that came too late is dropped.
            state.withLock { _ = $0.cancelled.remove(id) }
        }

        /// Gives back a slot ``admit(_:)`` granted.
        func leave(_ origin: String) {
            let next = state.withLock { state -> Waiter? in
                guard var entry = state.origins[origin] else { return nil }
                if entry.waiters.isEmpty {
                    entry.admitted -= 1
                    state.origins[origin] = entry.admitted > 0 ? entry : nil
                    return nil
                }
                // The slot passes straight to the first waiter.
                let first = entry.waiters.removeFirst()
                state.origins[origin] = entry
                return first
            }
            next?.continuation.resume()
        }
    }
#endif
