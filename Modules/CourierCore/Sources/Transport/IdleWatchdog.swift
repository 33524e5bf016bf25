import Synchronization

/// Ends an exchange that has moved no byte either way for a while: the
/// idle timeout (``TransportOptions/idleTimeout``) for transports whose HTTP
/// library has none per request.
///
/// The transport calls ``touch()`` whenever bytes go out or come in (a body
/// chunk written, the head, a body chunk read) and races the exchange
/// against ``expiry()``, which throws ``TransportError/Code/timedOut`` once
/// the quiet has lasted the limit. A touch costs a clock read and an atomic
/// store; no timer is rearmed per chunk: the one waiting task wakes at the
/// earliest moment the limit could have passed and goes back to sleep when a
/// touch came in between.
package final class IdleWatchdog: Sendable {
    /// The longest quiet allowed.
    package let limit: Duration
    private let clock: any CourierClock
    /// `clock.now` at the latest touch, in nanoseconds.
    private let lastTouch: Atomic<Int64>
    /// The transfer is paused (``suspend()``): the quiet is not counted.
    private let suspended = Atomic<Bool>(false)

    /// Starts watching now: the exchange has `limit` to move its first byte.
    package init(limit: Duration, clock: any CourierClock = SystemClock()) {
        self.limit = limit
        self.clock = clock
        lastTouch = Atomic(clock.now.nanoseconds)
    }

    /// Bytes moved: the quiet starts again.
    package func touch() {
        lastTouch.store(clock.now.nanoseconds, ordering: .relaxed)
    }

    /// The transfer was paused on purpose (``TransferControl``): no quiet
    /// counts until ``resume()``.
    package func suspend() {
        suspended.store(true, ordering: .relaxed)
    }

    /// The paused transfer goes on: the quiet starts now.
    package func resume() {
        touch()
        suspended.store(false, ordering: .releasing)
    }

    /// Returns never: throws ``TransportError/Code/timedOut`` once no touch
    /// came for ``limit``, or `CancellationError` when the task waiting in
    /// it is cancelled (the exchange ended first).
    package func expiry() async throws {
        var seen = lastTouch.load(ordering: .relaxed)
        while true {
            let quiet = clock.now - .nanoseconds(seen)
            if quiet < limit { try await clock.sleepAsTimeout(for: limit - quiet) }
            try Task.checkCancellation()
            // The flag first: a resume's touch is seen with its clearing.
            if suspended.load(ordering: .acquiring) {
                // Paused: look again a whole limit later (a resume touches,
                // so the quiet then counts from it).
                seen = clock.now.nanoseconds
                continue
            }
            let latest = lastTouch.load(ordering: .relaxed)
            if latest == seen {
                throw TransportError(
                    .timedOut, "no byte was sent or received for \(limit) (the idle timeout)")
            }
            seen = latest
        }
    }

    /// Waits in a task of its own and calls `onExpiry` with the timeout if
    /// the quiet lasts; cancel the task when the exchange ends first.
    package func watch(onExpiry: @escaping @Sendable (TransportError) -> Void) -> Task<Void, Never> {
        Self.watch({ try await self.expiry() }, onExpiry: onExpiry)
    }

    /// Runs `expiry` in a task of its own and hands the timeout it throws to
    /// `onExpiry`; the task's cancellation (the exchange ended first) ends
    /// it quietly. Shared by the idle and the total timeouts' watches.
    package static func watch(
        _ expiry: @escaping @Sendable () async throws -> Void,
        onExpiry: @escaping @Sendable (TransportError) -> Void
    ) -> Task<Void, Never> {
        Task {
            do {
                try await expiry()
            } catch let error as TransportError {
                onExpiry(error)
            } catch {}  // cancelled: the exchange ended first
        }
    }
}
