/// Lets at most `limit` exchanges per origin into a transport's connection
/// pool at once; the others wait here, first come first served, for as long
/// as their own deadline allows.
///
/// Why: a pool that queues on its own starts the request's clock, or a clock
/// of its own, before a connection is free. FoundationNetworking queues a
/// task over `httpMaximumConnectionsPerHost` (6) inside libcurl while the
/// task's idle timer runs, so six held exchanges to one host fail every
/// other call to it with `URLError.timedOut` and not a byte sent;
/// async-http-client fails a queued request at its *connect* timeout
/// (`getConnectionFromPoolTimeout`). Waiting here instead, the pool is only
/// ever given what it can send at once; the wait counts against the call's
/// deadline, and a call whose deadline passes while it waits fails with
/// ``TransportError/Code/connectionUnavailable``, which says so. Cancelling
/// a waiting call takes it out of the queue at once.
package final class HostAdmission: Sendable {
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
        /// Waiters between their ID and their place in the queue.
        var arriving: Set<UInt64> = []
        /// Arriving waiters that ended (cancelled, or out of time) before
        /// they were queued.
        var ended: [UInt64: any Error] = [:]
        var nextID: UInt64 = 0
    }

    /// The most exchanges admitted per origin.
    package let limit: Int
    private let state = Locked(State())

    /// Creates an admission of at most `limit` (at least 1) exchanges per origin.
    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Exchanges admitted and exchanges waiting, over every origin.
    package var load: (active: Int, waiting: Int) {
        state.withLock { state in
            state.origins.values.reduce(into: (active: 0, waiting: 0)) { sum, origin in
                sum.active += origin.admitted
                sum.waiting += origin.waiters.count
            }
        }
    }

    /// One admitted exchange's place: give it back with ``release()`` once
    /// the exchange is over (for a streamed body, once the body has ended:
    /// the stream holds its connection that long).
    package final class Slot: Sendable {
        /// How long the call waited for it (zero when one was free).
        package let waited: Duration
        private let origin: String
        private let owner: HostAdmission
        private let released = Locked(false)

        fileprivate init(_ owner: HostAdmission, origin: String, waited: Duration) {
            self.owner = owner
            self.origin = origin
            self.waited = waited
        }

        /// Gives the place back; the first waiter for the origin, if any,
        /// takes it over. Only the first call counts.
        package func release() {
            let first = released.withLock { released in
                defer { released = true }
                return !released
            }
            if first { owner.leave(origin) }
        }
    }

    /// Waits for a place for `origin`.
    /// - Parameters:
    ///   - origin: `scheme://authority`, the pool's unit.
    ///   - options: Their ``TransportOptions/timeout`` bounds the wait and
    ///     their ``TransportOptions/cancellation`` (like the task's) ends it.
    /// - Returns: The place, to be released once the exchange is over.
    /// - Throws: ``TransportError/Code/connectionUnavailable`` when the
    ///   timeout passes first, ``TransportError/Code/cancelled`` when the
    ///   call is cancelled while it waits.
    package func admit(_ origin: String, options: TransportOptions) async throws(TransportError) -> Slot {
        let clock = ContinuousClock()
        let start = clock.now
        if tryAdmit(origin) { return Slot(self, origin: origin, waited: .zero) }
        let id = state.withLock { state in
            state.nextID += 1
            state.arriving.insert(state.nextID)
            return state.nextID
        }
        let limit = self.limit
        let expiry = options.timeout.map { timeout in
            // Counted from the call's arrival, not from when the pool gets to the task.
            let end = start + timeout
            // Holds the admission only until it is cancelled below: no
            // weak reference, whose side table outlives nothing here.
            return Task {
                try await Task.sleep(until: end, clock: .continuous)
                self.end(
                    id, origin: origin,
                    with: TransportError(
                        .connectionUnavailable,
                        "waited \(timeout) for a connection to \(origin): all \(limit) allowed were in use"
                            + " (nothing was sent)"))
            }
        }
        defer { expiry?.cancel() }
        do {
            try await options.withCancellationHandler {
                try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<Void, any Error>) in
                    enqueue(id, origin: origin, continuation)
                }
            } onCancel: {
                self.end(id, origin: origin, with: TransportError(.cancelled, "the request was cancelled"))
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.cancelled, "the request was cancelled")
        }
        return Slot(self, origin: origin, waited: clock.now - start)
    }

    /// Takes a slot for `origin` when one is free, without waiting.
    private func tryAdmit(_ origin: String) -> Bool {
        state.withLock { state in
            var entry = state.origins[origin] ?? Origin()
            guard entry.admitted < limit, entry.waiters.isEmpty else { return false }
            entry.admitted += 1
            state.origins[origin] = entry
            return true
        }
    }

    private func enqueue(_ id: UInt64, origin: String, _ continuation: CheckedContinuation<Void, any Error>) {
        enum Decision {
            case admitted
            case ended(any Error)
            case queued
        }
        let decision = state.withLock { state -> Decision in
            state.arriving.remove(id)
            if let error = state.ended.removeValue(forKey: id) { return .ended(error) }
            var entry = state.origins[origin] ?? Origin()
            defer { state.origins[origin] = entry }
            if entry.admitted < limit, entry.waiters.isEmpty {
                entry.admitted += 1
                return .admitted
            }
            entry.waiters.append(Waiter(id: id, continuation: continuation))
            return .queued
        }
        switch decision {
        case .admitted: continuation.resume()
        case .ended(let error): continuation.resume(throwing: error)
        case .queued: break
        }
    }

    /// Ends waiter `id` with `error` if it is still waiting; one that was
    /// admitted meanwhile keeps its slot.
    private func end(_ id: UInt64, origin: String, with error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            if let index = state.origins[origin]?.waiters.firstIndex(where: { $0.id == id }) {
                return state.origins[origin]?.waiters.remove(at: index)
            }
            // Not queued yet: the enqueue sees the mark. (Admitted or
            // ended already: nothing to do.)
            if state.arriving.contains(id), state.ended[id] == nil { state.ended[id] = error }
            return nil
        }
        waiter?.continuation.resume(throwing: error)
    }

    /// Gives back a place ``admit(_:options:)`` granted; the first waiter
    /// for `origin`, if any, takes it over.
    private func leave(_ origin: String) {
        let next = state.withLock { state -> Waiter? in
            guard var entry = state.origins[origin] else { return nil }
            if entry.waiters.isEmpty {
                entry.admitted -= 1
                state.origins[origin] = entry.admitted > 0 ? entry : nil
                return nil
            }
            let first = entry.waiters.removeFirst()
            state.origins[origin] = entry
            return first
        }
        next?.continuation.resume()
    }
}
