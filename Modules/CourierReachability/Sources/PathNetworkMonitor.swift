#if canImport(Network)
    @_spi(Locking) import CourierCore
    import CourierResilience
    import Network

    /// A ``CourierCore/NetworkMonitor`` for Apple platforms over
    /// `NWPathMonitor`: online while the current path is `.satisfied`.
    ///
    /// ```swift
    /// let network = PathNetworkMonitor()
    /// var configuration = APIClient.Configuration(transport: URLSessionTransport.shared)
    /// configuration.networkMonitor = network
    /// ```
    public final class PathNetworkMonitor: NetworkMonitor {
        private let monitor: NWPathMonitor
        private let broadcast: NetworkStatusBroadcast

        /// Starts watching the current path, on a queue of its own.
        public init() {
            monitor = NWPathMonitor()
            let broadcast = NetworkStatusBroadcast(Self.status(of: monitor.currentPath))
            self.broadcast = broadcast
            monitor.pathUpdateHandler = { path in broadcast.publish(Self.status(of: path)) }
            monitor.start(queue: DispatchQueue(label: "courier.path-monitor"))
        }

        deinit {
            monitor.cancel()
            broadcast.finish()
        }

        /// The state of the path as last reported.
        public var status: NetworkStatus { broadcast.status }

        /// The current status, then every change the path monitor reports.
        public func statusUpdates() -> AsyncStream<NetworkStatus> { broadcast.updates() }

        private static func status(of path: NWPath) -> NetworkStatus {
            let interfaces = path.availableInterfaces.map(\.name).joined(separator: ", ")
            switch path.status {
            case .satisfied: return .online("path satisfied via \(interfaces)")
            case .requiresConnection: return .offline("the path needs a connection to be set up first")
            default: return .offline("no usable path")
            }
        }
    }
#endif
