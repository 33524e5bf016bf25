import CCurl
import Synchronization

/// Easy handles kept for reuse: creating one costs far more than resetting it.
/// A handle in the pool belongs to nobody else; taking it hands it to one
/// transfer, which gives it back (reset) when it ends.
final class CurlHandlePool: Sendable {
    /// An easy handle with no owner.
    private struct Idle: @unchecked Sendable {
        // Safe: an idle handle is reachable only through the pool's lock, and
        // exactly one transfer owns it after `take()`.
        let handle: UnsafeMutableRawPointer
    }

    private let idle = Mutex<[Idle]>([])
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    deinit {
        for entry in idle.withLock({ $0 }) { curl_easy_cleanup(entry.handle) }
    }

    /// A handle with default options: a pooled one, or a new one.
    func take() -> UnsafeMutableRawPointer? {
        idle.withLock { $0.popLast()?.handle } ?? curl_easy_init()
    }

    /// Takes a handle back once its transfer has left the multi handle.
    func give(_ handle: UnsafeMutableRawPointer) {
        curl_easy_reset(handle)
        let kept = idle.withLock { idle in
            guard idle.count < capacity else { return false }
            idle.append(Idle(handle: handle))
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }
}
