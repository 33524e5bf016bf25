@_spi(Locking) import CourierCore
public import CourierResilience

/// A ``/CourierResilience/NetworkMonitor`` whose status a test sets: offline, the
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
    private let broadcast: NetworkStatusBroadcast
    private let reads = Locked(0)

    /// Creates a monitor, online unless told otherwise.
    public init(_ status: NetworkStatus = .online("fake network")) {
        broadcast = NetworkStatusBroadcast(status)
    }

    /// The status every read returns until it is set again; setting it
    /// tells every ``statusUpdates()`` stream at once.
    public var status: NetworkStatus {
        get {
            reads.withLock { $0 += 1 }
            return broadcast.status
        }
        set { broadcast.publish(newValue) }
    }

    /// The current status, then every change, with no polling.
    public func statusUpdates() -> AsyncStream<NetworkStatus> { broadcast.updates() }

    /// How many ``statusUpdates()`` streams are being read now: a test
    /// waits for a call to be listening before it brings the network back.
    public var listeners: Int { broadcast.subscriberCount }

    /// How many times the status was read: once per attempt.
    public var readCount: Int { reads.withLock { $0 } }
}
