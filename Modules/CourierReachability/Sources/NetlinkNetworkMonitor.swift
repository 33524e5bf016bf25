#if os(Linux)
    import CMnl
    @_spi(Locking) import CourierCore
    public import CourierResilience
    import Foundation
    import Glibc

    /// A ``/CourierResilience/NetworkMonitor`` for Linux: online while a default
    /// route (IPv4 or IPv6, main table) leaves through a link that is up and
    /// not the loopback. It listens to rtnetlink's link and route events on
    /// a thread of its own and reads the tables again after each burst, so
    /// ``status`` is always a cached value.
    ///
    /// ```swift
    /// let network = try await NetlinkNetworkMonitor.start()
    /// var configuration = APIClient.Configuration(transport: CurlTransport.shared)
    /// configuration.networkMonitor = network
    /// for await status in network.statusUpdates() { print(status) }  // online (IPv4 default route via eth0)
    /// ```
    public final class NetlinkNetworkMonitor: NetworkMonitor {
        private let broadcast = NetworkStatusBroadcast(.offline("not started"))
        /// Written to stop the thread.
        private let wake: Int32

        private init(wake: Int32) { self.wake = wake }

        /// Starts a monitor and returns once it has read the tables.
        ///
        /// - Parameter networkNamespace: A named network namespace (as
        ///   `ip netns add` makes them, under `/var/run/netns`) to watch
        ///   instead of the process's own — a container's, say.
        /// - Returns: The running monitor.
        /// - Throws: ``NetworkMonitorError`` when netlink cannot be opened
        ///   or read, or the namespace cannot be entered.
        public static func start(networkNamespace: String? = nil) async throws(NetworkMonitorError)
            -> NetlinkNetworkMonitor
        {
            let wake = courier_eventfd()
            guard wake >= 0 else { throw NetworkMonitorError("cannot create an eventfd") }
            let monitor = NetlinkNetworkMonitor(wake: wake)
            let started: Result<Void, NetworkMonitorError> = await withCheckedContinuation { continuation in
                let thread = Thread {
                    monitor.run(networkNamespace, started: { continuation.resume(returning: $0) })
                }
                thread.name = "courier.netlink"
                thread.start()
            }
            try started.get()
            return monitor
        }

        deinit { stop() }

        /// The state as last read.
        public var status: NetworkStatus { broadcast.status }

        /// The current status, then every change, until the monitor stops.
        public func statusUpdates() -> AsyncStream<NetworkStatus> { broadcast.updates() }

        /// Stops the thread and ends every update stream; ``status`` keeps the last state.
        public func stop() {
            var one: UInt64 = 1
            _ = write(wake, &one, 8)
        }

        private func publish(_ status: NetworkStatus) { broadcast.publish(status) }

        /// The thread: enter the namespace, subscribe, read, then wait for
        /// events (or the stop signal) and read again after each burst.
        private func run(_ namespace: String?, started: (Result<Void, NetworkMonitorError>) -> Void) {
            defer {
                close(wake)
                broadcast.finish()
            }
            let events: OpaquePointer
            do throws(NetworkMonitorError) {
                if let namespace { try Self.enter(namespace) }
                guard let socket = mnl_socket_open(NETLINK_ROUTE) else {
                    throw NetworkMonitorError("cannot open a netlink socket")
                }
                events = socket
                guard mnl_socket_bind(events, courier_rtnetlink_groups(), 0) == 0 else {
                    mnl_socket_close(events)
                    throw NetworkMonitorError("cannot subscribe to rtnetlink events")
                }
                do throws(NetworkMonitorError) {
                    publish(try NetlinkDump.read().status)
                } catch {
                    mnl_socket_close(events)
                    throw error
                }
            } catch {
                started(.failure(error))
                return
            }
            defer { mnl_socket_close(events) }
            started(.success(()))
            let fd = mnl_socket_get_fd(events)
            var buffer = [UInt8](repeating: 0, count: courier_mnl_buffer_size())
            while true {
                var watched = [
                    pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                ]
                guard poll(&watched, 2, -1) >= 0 || errno == EINTR else { return }
                if watched[1].revents != 0 { return }
                guard watched[0].revents != 0 else { continue }
                // Drain the burst: what changed is read back whole, not pieced together.
                while buffer.withUnsafeMutableBytes({
                    recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                }) > 0 {}
                if let table = try? NetlinkDump.read() { publish(table.status) }
            }
        }

        private static func enter(_ namespace: String) throws(NetworkMonitorError) {
            guard !namespace.contains("/") else {
                errno = EINVAL
                throw NetworkMonitorError("network namespace \"\(namespace)\" is a name, not a path")
            }
            let descriptor = open("/var/run/netns/\(namespace)", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw NetworkMonitorError("cannot open network namespace \(namespace)")
            }
            defer { close(descriptor) }
            guard courier_setns_network(descriptor) == 0 else {
                throw NetworkMonitorError("cannot enter network namespace \(namespace)")
            }
        }
    }
#endif
