/// An attempt that finds the network down waits for it to come back
/// (``APIClient/Configuration/waitsForConnectivity``), for a bounded time.
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

    /// How long an attempt may wait: what is left of the retry policy's
    /// deadline, else the attempt's total, else its idle timeout, else a minute.
    static func bound(_ state: CallState) -> Duration {
        let settings = state.settings
        let left = settings.retryPolicy.deadline.map { $0 - state.budget.elapsed(now: settings.clock.now) }
        return max(.zero, left ?? settings.timeout ?? settings.idleTimeout ?? .seconds(60))
    }
}
