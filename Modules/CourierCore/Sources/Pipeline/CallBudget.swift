import Synchronization

/// The call's attempt count and the start of its retry deadline: the one
/// piece of call state that is not a plain value.
///
/// A per-call interceptor may call `next` any number of times — to replay
/// after refreshing a token, or twice at once to hedge — and a response
/// handler may run the call again. Every one of those runs the attempt loop,
/// and they must all draw on the same count and the same deadline: attempt
/// numbers go on from where the last run stopped, the retry policy counts
/// every attempt of the call against ``RetryPolicy/maxAttempts``, and no
/// attempt starts after the deadline has passed. Since the runs may overlap,
/// the count lives behind a lock, and an attempt's number and its share of
/// the deadline are taken in one step (``begin(now:deadline:)``).
final class CallBudget: Sendable {
    private struct State {
        var attempts = 0
        /// Requests transports sent again by themselves (``TransportMetrics/resends``).
        var resends = 0
        /// When the call's first attempt under a deadline began; the deadline counts from here.
        var start: Duration?
    }

    private let state = Locked(State())

    /// Attempts begun so far in the call, every run of the loop included.
    var attempts: Int { state.withLock { $0.attempts } }

    /// Requests the transports sent again by themselves, across the call's attempts.
    var resends: Int { state.withLock { $0.resends } }

    /// Counts an attempt's transport-level resends.
    func addResends(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.resends += count }
    }

    /// Begins an attempt: numbers it, and says how much of the deadline is
    /// left for it.
    /// - Parameters:
    ///   - now: The clock's time, needed only when there is a deadline; the
    ///     deadline counts from the first attempt begun with one.
    ///   - deadline: The retry policy's deadline, if any.
    /// - Returns: The attempt's number (from 1) and the time left before the
    ///   deadline, `nil` without one.
    /// - Throws: ``CourierError/Code/deadlineExceeded`` when no time is left;
    ///   no attempt is counted then.
    func begin(now: @autoclosure () -> Duration, deadline: Duration?) throws(CourierError) -> (
        number: Int, remaining: Duration?
    ) {
        let time = deadline.map { _ in now() }
        let outcome: Result<(Int, Duration?), CourierError> = state.withLock { state in
            var remaining: Duration?
            if let deadline, let time {
                let start = state.start ?? time
                let left = deadline - (time - start)
                guard left > .zero else {
                    return .failure(
                        CourierError(
                            .deadlineExceeded, stage: .retry,
                            message:
                                "the retry deadline of \(deadline) ran out before attempt \(state.attempts + 1)",
                            attempt: state.attempts))
                }
                state.start = start
                remaining = left
            }
            state.attempts += 1
            return .success((state.attempts, remaining))
        }
        return try outcome.get()
    }

    /// Time since the call's first attempt under a deadline began; zero before it.
    func elapsed(now: Duration) -> Duration {
        state.withLock { state in state.start.map { now - $0 } ?? .zero }
    }
}
