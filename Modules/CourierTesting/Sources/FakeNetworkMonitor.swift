@_spi(Locking) import CourierCore

/// A ``/CourierCore/NetworkMonitor`` whose status a test sets: offline, the
/// next attempt fails with ``/CourierCore/CourierError/Code/offline`` and
/// nothing is sent; online again, calls go through.
///
/// ```swift
/// let network = FakeNetworkMonitor(.offline("airplane mode"))
/// var configuration = APIClient.Configuration(transport: recorder)
/// configuration.networkMonitor = network
/// // … a call fails with .offline, recorder.records is empty …
/// network.status = .online("wifi")
/// ```
public final class FakeNetworkMonitor: NetworkMonitor {
    private let current: Locked<NetworkStatus>
    private let reads = Locked(0)

    /// Creates a monitor, online unless told otherwise.
    public init(_ status: NetworkStatus = .online("fake network")) {
        current = Locked(status)
    }

    /// The status every read returns until it is set again.
    public var status: NetworkStatus {
        get {
            reads.withLock { $0 += 1 }
            return current.withLock { $0 }
        }
        set { current.withLock { $0 = newValue } }
    }

    /// How many times the status was read: once per attempt.
    public var readCount: Int { reads.withLock { $0 } }
}
