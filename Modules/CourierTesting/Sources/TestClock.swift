@_spi(Locking) public import CourierCore
public import Foundation
import Synchronization

/// A clock for tests: time moves only when the test says so, so retry
/// delays, deadlines and latency are tested without sleeping.
///
/// Two modes:
/// - ``Mode/autoAdvance``: every delay (a retry's backoff, a reconnection's
///   wait) returns at once and moves the clock forward by its duration. Use
///   it to check a schedule: ``sleeps`` lists every delay asked for. A
///   *timeout* — a timer that races work, such as an `Authenticator`'s
///   refresh timeout or a stream's idle and total timeouts — does not return
///   at once (it would fire before any work could end, since work takes no
///   time on this clock): it waits, as in manual mode, for ``advance(by:)``
///   to pass its end, or for the work to end first. So an `Authenticator`
///   given this clock refreshes as it would in production, and a test of a
///   timeout advances the clock past it.
/// - ``Mode/manual``: a `sleep` suspends until ``advance(by:)`` moves the
///   clock past its end. Use ``waitForSleepers(_:)`` to know that a call has
///   reached its wait, then advance or cancel.
///
/// ```swift
/// let clock = TestClock()
/// let client = APIClient(transport: StubTransport.sequence([.status(503), .json("{}")]),
///                        retryPolicy: .standard, clock: clock)
/// _ = try await client.send(endpoint)
/// #expect(clock.sleeps.count == 1)
/// ```
public final class TestClock: CourierClock {
    /// How `sleep` behaves.
    public enum Mode: Sendable {
        /// `sleep` returns at once and advances the clock.
        case autoAdvance
        /// `sleep` waits for ``TestClock/advance(by:)``.
        case manual
    }

    private struct Sleeper {
        let id: UInt64
        let end: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var cancelledIDs: Set<UInt64> = []
        var sleeps: [Duration] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var sleepWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let mode: Mode
    private let startDate: Date
    private let state = Locked(State())

    /// Creates a clock at time zero; ``date`` starts at `startDate`.
    public init(mode: Mode = .autoAdvance, startDate: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.mode = mode
        self.startDate = startDate
    }

    /// Time since the clock was created, as far as it was advanced.
    public var now: Duration { state.withLock { $0.now } }

    /// ``now`` after the start date.
    public var date: Date {
        startDate.addingTimeInterval(now.seconds)
    }

    /// Every duration slept for (delays and timeouts), in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// How many sleeps are waiting right now (manual mode).
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Sleeps on virtual time; see ``Mode``.
    public func sleep(for duration: Duration) async throws {
        try await suspend(for: duration, advancing: mode == .autoAdvance)
    }

    /// A delay in auto-advance mode moves the clock and returns; anything
    /// else waits for ``advance(by:)`` (or cancellation).
    private func suspend(for duration: Duration, advancing: Bool) async throws {
        try Task.checkCancellation()
        if advancing {
            state.withLock { state in
                state.sleeps.append(duration)
                state.now += max(duration, .zero)
                Self.notifySleepWatchers(&state)
            }
            return
        }
        let id = state.withLock { state in
            state.nextID += 1
            state.sleeps.append(duration)
            Self.notifySleepWatchers(&state)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledIDs.remove(id) != nil { return .failure(CancellationError()) }
                    if duration <= .zero { return .success(()) }
                    state.sleepers.append(
                        Sleeper(id: id, end: state.now + duration, continuation: continuation))
                    Self.notifyWatchers(&state)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledIDs.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleep that has ended, earliest first.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.end <= now }.sorted { $0.end < $1.end }
            state.sleepers.removeAll { $0.end <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` sleeps are waiting (manual mode).
    public func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Returns once at least `count` sleeps were asked for since the clock
    /// was made, in either mode (delays and timeouts; see ``sleeps``).
    public func waitForSleeps(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.sleeps.count >= count { return true }
                state.sleepWatchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func notifySleepWatchers(_ state: inout State) {
        resume(&state.sleepWatchers, reaching: state.sleeps.count)
    }

    private static func notifyWatchers(_ state: inout State) {
        resume(&state.watchers, reaching: state.sleepers.count)
    }

    /// Resumes and removes the watchers waiting for at most `count`.
    private static func resume(
        _ watchers: inout [(count: Int, continuation: CheckedContinuation<Void, Never>)], reaching count: Int
    ) {
        let ready = watchers.filter { $0.count <= count }
        watchers.removeAll { $0.count <= count }
        for watcher in ready { watcher.continuation.resume() }
    }
}

/// Timeouts wait for the test (see ``TestClock/Mode/autoAdvance``).
extension TestClock: TimeoutAwareClock {
    package func sleepAsTimeout(for duration: Duration) async throws {
        try await suspend(for: duration, advancing: false)
    }
}
