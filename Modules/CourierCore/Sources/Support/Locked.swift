public import CCourierSanitizer
public import Synchronization

/// A value behind a lock: `Synchronization.Mutex`, with the lock made visible
/// to ThreadSanitizer.
///
/// On Linux, `Mutex` waits with futex system calls that ThreadSanitizer does
/// not intercept, so a correct program that shares state through it is
/// reported as racy (two threads appending to a `Mutex<[Int]>` inside
/// `withLock` are enough). `Locked` announces each critical section to TSan
/// (`__tsan_acquire` after locking, `__tsan_release` before unlocking, on the
/// lock's own address); the calls are no-ops unless the build uses
/// `-sanitize=thread`. Every lock in Courier's modules is a `Locked`, so
/// `scripts/check-tsan` reports only real races.
///
/// Not API: public only as SPI (`@_spi(Locking) import CourierCore`), so
/// that its methods are `@inlinable`. A `package` generic is not
/// specialised in the other modules (CourierCurl, CourierCache): every call
/// there instantiated generic metadata, about 0.1 µs a lock on a cache hit.
@_spi(Locking)
public struct Locked<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    // `@unchecked Sendable` is safe for the same reason `Mutex` is Sendable:
    // the value is only reached through `withLock`, which holds the mutex.
    @usableFromInline let mutex: Mutex<Value>

    /// Creates a lock around `value`.
    @inlinable
    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value) throws(E) -> sending Result in
            let address = withUnsafePointer(to: mutex) { UnsafeMutableRawPointer(mutating: $0) }
            courier_tsan_acquire(address)
            defer { courier_tsan_release(address) }
            return try body(&value)
        }
    }
}
