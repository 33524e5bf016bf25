@_spi(Locking) import CourierCore
import Synchronization

/// Easy handles kept for reuse: creating one and setting its shared options
/// costs far more than setting a request's own. A handle in the pool belongs
/// to nobody else; taking it hands it to one transfer, which gives it back
/// when it ends.
final class CurlHandlePool: Sendable {
    /// A handle with no owner.
    private struct Idle: @unchecked Sendable {
        // Safe: an idle handle is reachable only through the pool's lock, and
        // exactly one transfer owns it after `take()`.
        let handle: CurlHandle
    }

    private let idle = Locked<[Idle]>([])
    private let capacity: Int
    private let configuration: CurlTransport.Configuration
    private let socketOpener: CurlSocketOpener?

    init(capacity: Int, configuration: CurlTransport.Configuration, socketOpener: CurlSocketOpener?) {
        self.capacity = capacity
        self.configuration = configuration
        self.socketOpener = socketOpener
    }

    /// A pooled handle, or a new one with the transport's shared options.
    func take() throws(TransportError) -> CurlHandle {
        if let pooled = idle.withLock({ $0.popLast() }) { return pooled.handle }
        return try CurlHandle(configuration: configuration, socketOpener: socketOpener)
    }

    /// Takes a handle back once its transfer has left the multi handle; one
    /// over the capacity is freed.
    func give(_ handle: CurlHandle) {
        idle.withLock { idle in
            if idle.count < capacity { idle.append(Idle(handle: handle)) }
        }
    }
}
