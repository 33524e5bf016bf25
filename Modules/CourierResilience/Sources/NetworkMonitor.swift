@_spi(Locking) import CourierCore

/// Whether the machine can reach a network at all: a reachability gate.
/// A client with a monitor asks it before every attempt
/// and, when it says offline, fails the attempt with
/// ``/CourierCore/CourierError/Code/offline`` without opening a socket: no timeout to wait
/// out, no retry to burn.
///
/// `CourierReachability` has the real ones (netlink on Linux,
/// `NWPathMonitor` on Apple platforms); `CourierTesting` has
/// `FakeNetworkMonitor`:
///
/// ```swift
/// var configuration = APIClient.Configuration(transport: CurlTransport.shared)
/// configuration.networkMonitor = try NetlinkNetworkMonitor()
/// ```
///
/// A monitor is asked often: ``status`` must be a cached value, quick to
/// read, kept current by the monitor's own thread or queue.
public protocol NetworkMonitor: Sendable {
    /// The current state.
    var status: NetworkStatus { get }

    /// The current status, then every change: what an attempt waiting for
    /// the network (`configuration.waitsForConnectivity`) listens
    /// to. The stream ends when its reader stops. A monitor that cannot
    /// report changes may leave it out: ``status`` is then read once a second.
    func statusUpdates() -> AsyncStream<NetworkStatus>
}

extension NetworkMonitor {
    /// The current status, then each change seen by reading ``status`` once a second.
    public func statusUpdates() -> AsyncStream<NetworkStatus> {
        AsyncStream { continuation in
            let poller = Task {
                var last: NetworkStatus?
                while !Task.isCancelled {
                    let status = self.status
                    if status != last { continuation.yield(status) }
                    last = status
                    try? await Task.sleep(for: .seconds(1))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in poller.cancel() }
        }
    }
}

/// What a ``NetworkMonitor`` knows: online or offline, and why.
public struct NetworkStatus: Sendable, Hashable, CustomStringConvertible {
    /// Whether a request could leave the machine.
    public var isOnline: Bool
    /// Why, for errors and logs: `default route via eth0`, `no default route`.
    public var reason: String

    /// Creates a status.
    public init(isOnline: Bool, reason: String) {
        self.isOnline = isOnline
        self.reason = reason
    }

    /// Online, because `reason`.
    public static func online(_ reason: String) -> NetworkStatus {
        NetworkStatus(isOnline: true, reason: reason)
    }
    /// Offline, because `reason`.
    public static func offline(_ reason: String) -> NetworkStatus {
        NetworkStatus(isOnline: false, reason: reason)
    }

    /// `online (reason)` or `offline (reason)`.
    public var description: String { "\(isOnline ? "online" : "offline") (\(reason))" }
}
