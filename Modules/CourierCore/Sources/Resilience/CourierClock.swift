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
