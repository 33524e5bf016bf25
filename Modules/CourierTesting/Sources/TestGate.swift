@_spi(Locking) import CourierCore

/// A one-shot gate for tests: tasks ``wait()`` until the test calls
/// ``open()``, then pass at once. Use it to hold a step of a call — a
/// token refresh, an attempt — at a known point instead of sleeping.
///
/// ```swift
/// let gate = TestGate()
/// let slow = ClosureInterceptor { request, _, next in
///     await gate.wait()
///     return try await next(request)
/// }
/// // … start calls, check what is waiting …
/// gate.open()
/// ```
public final class TestGate: Sendable {
    // Locked, not Mutex: ThreadSanitizer cannot see Mutex's futex waits and
    // reported races on this state under load (scripts/check-tsan).
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Creates a closed gate.
    public init() {}

    /// Whether ``open()`` was called.
    public var isOpen: Bool { state.withLock { $0.open } }

    /// Returns once the gate is open (at once if it already is).
    public func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    /// Opens the gate for every waiting and later task.
    public func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
