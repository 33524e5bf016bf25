#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The time source for retries, deadlines and delays, injected so that tests
/// never sleep (`CourierTesting` ships `TestClock`).
public protocol CourierClock: Sendable {
    /// Monotonic time since an arbitrary origin.
    var now: Duration { get }
    /// The wall-clock date, for HTTP dates such as `Retry-After`.
    var date: Date { get }
    /// Suspends for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real clock: `ContinuousClock` and the system date.
public struct SystemClock: CourierClock {
    private let origin = ContinuousClock.now

    /// Creates the system clock.
    public init() {}

    /// Time since this clock was created.
    public var now: Duration { ContinuousClock.now - origin }
    /// The current date.
    public var date: Date { Date() }

    /// Sleeps on `ContinuousClock`.
    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return try Task.checkCancellation() }
        try await ContinuousClock().sleep(for: duration)
    }
}

/// A clock that tells a timeout from a delay. A delay (a retry's backoff, a
/// reconnection's wait) is the only thing happening; a timeout (a refresh's
/// limit, a silence watchdog, a total deadline) races work that takes real
/// time. On a clock whose time moves only when something sleeps —
/// CourierTesting's `TestClock` in its auto-advancing mode — a timeout that
/// returned at once would fire before any work could end, so such a clock
/// lets the test decide when a timeout's time has come.
package protocol TimeoutAwareClock: CourierClock {
    /// Suspends for `duration` as a timeout: until the time has passed on
    /// this clock; throws `CancellationError` when the task is cancelled.
    func sleepAsTimeout(for duration: Duration) async throws
}

extension CourierClock {
    /// Suspends for `duration` as a timer racing work (a timeout, a watchdog):
    /// ``TimeoutAwareClock/sleepAsTimeout(for:)`` on a clock that tells them
    /// apart, `sleep(for:)` on any other.
    package func sleepAsTimeout(for duration: Duration) async throws {
        if let aware = self as? any TimeoutAwareClock {
            try await aware.sleepAsTimeout(for: duration)
        } else {
            try await sleep(for: duration)
        }
    }
}
