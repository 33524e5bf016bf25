import HTTPTypes

/// The exchanges a client's coalesced calls share (``Coalescing``): one per
/// request key and endpoint, from its first caller until it ends or its
/// last caller cancels.
///
/// The exchange — the attempt loop of the call that started it — runs in a
/// task of its own, with a cancellation of its own, so that no single
/// caller's cancellation reaches it; each caller waits for it and can stop
/// waiting alone. When the last caller leaves, the exchange is cancelled
/// (its transfer stops).
final class InFlightCalls: Sendable {
    /// A request key and the endpoint it came from.
    struct Key: Hashable, Sendable {
        let request: RequestKey
        let endpoint: String
        /// What the per-attempt interceptors and plugins declared they add
        /// (``PassIdentity``): two principals never share an exchange.
        let principals: String?
    }

    private struct Flight {
        let id: UInt64
        let cancellation: CallCancellation
        var task: Task<Void, Never>?
        /// The callers waiting for it.
        var callers: Set<UInt64> = []
    }

    private struct State: ~Copyable {
        var flights: [Key: Flight] = [:]
        /// Each caller's wait for its exchange.
        var waits = PendingWaits<Result<RawResponse, CourierError>>()
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// How many exchanges are in flight.
    var count: Int { state.withLock { $0.flights.count } }

    /// Callers waiting for any exchange.
    var callersInFlight: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.callers.count } } }

    /// Runs `next` — the attempt loop — for `request` once for every caller
    /// with the same key in flight, or joins the one already running.
    nonisolated(nonsending) func share(
        _ key: Key, _ request: OutgoingRequest, _ call: CallState, _ next: CallTierNext
    ) async throws(CourierError) -> RawResponse {
        let (flight, caller, leads) = state.withLock { state in
            state.nextID += 1
            let caller = state.nextID
            state.waits.open(caller)
            var flight: Flight
            let leads = state.flights[key] == nil
            if let existing = state.flights[key] {
                flight = existing
            } else {
                state.nextID += 1
                flight = Flight(id: state.nextID, cancellation: CallCancellation())
            }
            flight.callers.insert(caller)
            state.flights[key] = flight
            return (flight, caller, leads)
        }
        call.emit(.coalesced(joined: !leads))
        if leads {
            let exchange = call.sharing(flight.cancellation)
            let task = Task {
                let result: Result<RawResponse, CourierError>
                do throws(CourierError) {
                    result = .success(try await next(request, exchange))
                } catch {
                    result = .failure(error)
                }
                self.land(key, flight.id, result)
            }
            state.withLock { state in
                if state.flights[key]?.id == flight.id { state.flights[key]?.task = task }
            }
        }
        return try await wait(key, flight.id, caller, call).get()
    }

    /// Waits for the exchange; the caller's task or call cancellation ends its wait alone.
    nonisolated(nonsending) private func wait(
        _ key: Key, _ flight: UInt64, _ caller: UInt64, _ call: CallState
    ) async
        -> Result<RawResponse, CourierError>
    {
        let leave: @Sendable () -> Void = { [self] in self.leave(key, flight, caller, call) }
        let registration = call.cancellation.onCancel(leave)
        defer { registration.remove() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<RawResponse, CourierError>, Never>) in
                let ready = state.withLock {
                    $0.waits.suspend(caller, continuation, missing: .failure(Self.cancelled(call)))
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            leave()
        }
    }

    /// A caller stops waiting; the last one out cancels the exchange.
    private func leave(_ key: Key, _ flight: UInt64, _ caller: UInt64, _ call: CallState) {
        let cancelled = Self.cancelled(call)
        let (continuation, orphaned) = state.withLock {
            state -> (CheckedContinuation<Result<RawResponse, CourierError>, Never>?, Flight?) in
            guard state.waits.isPending(caller) else { return (nil, nil) }
            let continuation = state.waits.end(caller, with: .failure(cancelled))
            var orphaned: Flight?
            if state.flights[key]?.id == flight {
                state.flights[key]?.callers.remove(caller)
                if state.flights[key]?.callers.isEmpty == true {
                    orphaned = state.flights.removeValue(forKey: key)
                }
            }
            return (continuation, orphaned)
        }
        continuation?.resume(returning: .failure(cancelled))
        if let orphaned {
            orphaned.cancellation.cancel()
            orphaned.task?.cancel()
        }
    }

    /// The exchange ended: every caller still waiting gets the result.
    private func land(_ key: Key, _ flight: UInt64, _ result: Result<RawResponse, CourierError>) {
        let woken = state.withLock {
            state -> [CheckedContinuation<Result<RawResponse, CourierError>, Never>] in
            guard state.flights[key]?.id == flight, let landed = state.flights.removeValue(forKey: key) else {
                return []
            }
            // Callers that have not suspended yet find the result when they do.
            return landed.callers.compactMap { state.waits.end($0, with: result) }
        }
        for continuation in woken { continuation.resume(returning: result) }
    }

    private static func cancelled(_ call: CallState) -> CourierError {
        ErrorMapping.cancelled(
            by: call.cancellation, stage: .transport, request: call.request?.head,
            attempt: call.budget.attempts)
    }
}
