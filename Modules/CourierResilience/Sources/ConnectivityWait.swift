@_spi(Locking) import CourierCore

/// An attempt that finds the network down waits for it to come back
/// (`configuration.waitsForConnectivity`), for a bounded time.
enum ConnectivityWait {
    /// The caller has found the network down. Returns once `monitor`
    /// reports online (`true`, at once if it already is), once `bound` has
    /// passed on `clock`, or once the task or the call is cancelled (`false`).
    nonisolated(nonsending) static func untilOnline(
        _ monitor: any NetworkMonitor, bound: Duration, clock: any CourierClock,
        cancellation: CallCancellation
    ) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                // The stream starts with the current status: no change is missed.
                for await status in monitor.statusUpdates() where status.isOnline { return true }
                return false
            }
            group.addTask {
                try? await CallCancellation.sleep(for: bound, on: clock, cancellation: cancellation)
                return false
            }
            let online = await group.next() ?? false
            group.cancelAll()
            return online
        }
    }

}

/// An attempt that finds the network down waits for it to come back first
/// (`AttemptSlot.connectivityWait`), for at most what is left of the
/// retry deadline, else the attempt's total, else its idle timeout;
/// the offline gate then refuses it if it did not.
struct ConnectivityWaitStep: AttemptStep {
    let monitor: any NetworkMonitor

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        if !monitor.status.isOnline {
            _ = await ConnectivityWait.untilOnline(
                monitor, bound: state.attemptWaitBound, clock: state.clock,
                cancellation: state.cancellation)
            if Task.isCancelled || state.cancellation.isCancelled {
                throw ErrorMapping.cancelled(
                    by: state.cancellation, stage: .transport, request: attempt.request.head,
                    attempt: state.attemptsBegun)
            }
        }
        return try await next(&attempt, state)
    }
}

/// The client's ``NetworkMonitor`` asked before each attempt
/// (`AttemptSlot.offlineGate`): offline, the attempt fails with
/// ``/CourierCore/CourierError/Code/offline`` and nothing is sent.
struct OfflineGateStep: AttemptStep {
    let monitor: any NetworkMonitor
    let waits: Bool

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        let status = monitor.status
        guard status.isOnline else {
            let waited = waits ? ", and did not come back in time" : ""
            var error = CourierError(
                .offline, stage: .transport, message: "offline (\(status.reason))\(waited): nothing was sent")
            error.request = attempt.request.head
            error.attempt = attempt.number
            throw error
        }
        return try await next(&attempt, state)
    }
}
