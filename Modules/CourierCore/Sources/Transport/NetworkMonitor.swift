/// Whether the machine can reach a network at all — CSAPIService's
/// reachability gate. A client with a monitor asks it before every attempt
/// and, when it says offline, fails the attempt with
/// ``CourierError/Code/offline`` without opening a socket: no timeout to wait
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
