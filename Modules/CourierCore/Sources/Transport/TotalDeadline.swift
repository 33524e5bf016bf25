/// The end of an exchange's total timeout (``TransportOptions/timeout``),
/// fixed when the call starts, for transports whose HTTP library has no
/// total of its own per request.
///
/// A timer task alone does not bound an exchange: on a loaded machine the
/// concurrency pool may start it late, after a slow response has already
/// arrived whole. So the transport does both: it races the exchange against
/// ``expiry()``, and calls ``check()`` once the response is complete (before
/// a download is moved into place), refusing a response that finished after
/// the end, as libcurl's own total does.
package struct TotalDeadline: Sendable {
    /// The total allowed, as the caller set it (for the error's message).
    package let timeout: Duration
    private let clock: any CourierClock
    /// `clock.now` when the exchange must be complete.
    private let end: Duration

    /// The deadline `timeout` from now, less what the call already `waited`
    /// (for a place among the host's connections).
    package init(_ timeout: Duration, waited: Duration = .zero, clock: any CourierClock = SystemClock()) {
        self.timeout = timeout
        self.clock = clock
        end = clock.now + timeout - waited
    }

    /// The error an exchange that missed the deadline ends with.
    package var error: TransportError {
        TransportError(.timedOut, "no complete response within \(timeout)")
    }

    /// Throws ``error`` when the end has passed.
    package func check() throws(TransportError) {
        if clock.now >= end { throw error }
    }

    /// Returns never: throws ``error`` at the end, or `CancellationError`
    /// when the waiting task is cancelled (the exchange ended first). The
    /// time left is measured when the waiting task runs, so a task started
    /// late waits less.
    package func expiry() async throws {
        let left = end - clock.now
        if left > .zero { try await clock.sleepAsTimeout(for: left) }
        try Task.checkCancellation()
        throw error
    }

    /// Waits in a task of its own and calls `onExpiry` with ``error`` at the
    /// end; cancel the task when the exchange ends first.
    package func watch(onExpiry: @escaping @Sendable (TransportError) -> Void) -> Task<Void, Never> {
        IdleWatchdog.watch({ try await expiry() }, onExpiry: onExpiry)
    }
}
