#if os(Linux)
    import CMnl
    import CourierCore
    import CourierResilience
    import Glibc

    /// Why a netlink monitor could not start or read the routing tables.
    public struct NetworkMonitorError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What failed, with the system's reason.
        public let message: String

        init(_ what: String) {
            message = "\(what): \(String(cString: strerror(errno)))"
        }

        /// The message.
        public var description: String { message }
    }

    /// Reads every link and every default route from rtnetlink (a dump of
    /// `RTM_GETLINK`, then of `RTM_GETROUTE`), through libmnl, over a
    /// socket of its own in the calling thread's network namespace.
    enum NetlinkDump {
        static func read() throws(NetworkMonitorError) -> RouteTable {
            guard let socket = mnl_socket_open(NETLINK_ROUTE) else {
                throw NetworkMonitorError("cannot open a netlink socket")
            }
            defer { mnl_socket_close(socket) }
            guard mnl_socket_bind(socket, 0, 0) == 0 else {
                throw NetworkMonitorError("cannot bind a netlink socket")
            }
            let collector = Collector()
            try dump(socket, type: UInt16(RTM_GETLINK), sequence: 1, collector: collector) {
                message, context in
                guard let message, let context else { return courier_mnl_cb_error }
                Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().link(message)
                return courier_mnl_cb_ok
            }
            try dump(socket, type: UInt16(RTM_GETROUTE), sequence: 2, collector: collector) {
                message, context in
                guard let message, let context else { return courier_mnl_cb_error }
                Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().route(message)
                return courier_mnl_cb_ok
            }
            return collector.table
        }

        /// Sends one dump request and runs `callback` on every answer until
        /// the kernel says done.
        private static func dump(
            _ socket: OpaquePointer, type: UInt16, sequence: UInt32, collector: Collector,
            callback: @convention(c) (UnsafePointer<nlmsghdr>?, UnsafeMutableRawPointer?) -> Int32
        ) throws(NetworkMonitorError) {
            var buffer = [UInt8](repeating: 0, count: courier_mnl_buffer_size())
            let portID = mnl_socket_get_portid(socket)
            let sent = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress, let header = mnl_nlmsg_put_header(base) else { return -1 }
                header.pointee.nlmsg_type = type
                header.pointee.nlmsg_flags = UInt16(NLM_F_REQUEST | NLM_F_DUMP)
                header.pointee.nlmsg_seq = sequence
                // An rtmsg fits both requests (an rtgenmsg is its first byte): every family.
                let body = mnl_nlmsg_put_extra_header(header, MemoryLayout<rtmsg>.size)
                body?.assumingMemoryBound(to: rtmsg.self).pointee.rtm_family = UInt8(AF_UNSPEC)
                return mnl_socket_sendto(socket, header, Int(header.pointee.nlmsg_len))
            }
            guard sent > 0 else { throw NetworkMonitorError("cannot ask rtnetlink for a dump") }
            let context = Unmanaged.passUnretained(collector).toOpaque()
            while true {
                let received = buffer.withUnsafeMutableBytes {
                    mnl_socket_recvfrom(socket, $0.baseAddress, $0.count)
                }
                guard received > 0 else { throw NetworkMonitorError("reading rtnetlink failed") }
                let result = buffer.withUnsafeBytes { raw in
                    mnl_cb_run(raw.baseAddress, received, sequence, portID, callback, context)
                }
                if result == courier_mnl_cb_stop { return }
                guard result > courier_mnl_cb_stop else {
                    throw NetworkMonitorError("rtnetlink refused the dump")
                }
            }
        }

        /// Collects the dump's messages; reached from libmnl's callbacks
        /// through an unretained pointer that lives for the whole `read()`.
        final class Collector {
            var table = RouteTable()
            /// Attributes of the message being parsed, by type.
            fileprivate var attributes: [UInt16: UnsafePointer<nlattr>] = [:]

            func link(_ message: UnsafePointer<nlmsghdr>) {
                let info = mnl_nlmsg_get_payload(message).assumingMemoryBound(to: ifinfomsg.self).pointee
                let name =
                    attributes(of: message, headerSize: MemoryLayout<ifinfomsg>.size)[UInt16(IFLA_IFNAME)]
                    .flatMap { mnl_attr_get_str($0) }.map { String(cString: $0) }
                    ?? "interface \(info.ifi_index)"
                let flags = Int32(bitPattern: info.ifi_flags)
                table.links[info.ifi_index] = RouteTable.Link(
                    name: name, up: flags & Int32(IFF_UP) != 0 && flags & Int32(IFF_RUNNING) != 0,
                    loopback: flags & Int32(IFF_LOOPBACK) != 0)
            }

            func route(_ message: UnsafePointer<nlmsghdr>) {
                let route = mnl_nlmsg_get_payload(message).assumingMemoryBound(to: rtmsg.self).pointee
                guard route.rtm_dst_len == 0, route.rtm_type == UInt8(RTN_UNICAST),
                    route.rtm_family == UInt8(AF_INET) || route.rtm_family == UInt8(AF_INET6)
                else { return }
                let attributes = attributes(of: message, headerSize: MemoryLayout<rtmsg>.size)
                let tableID =
                    attributes[UInt16(RTA_TABLE.rawValue)].map { mnl_attr_get_u32($0) }
                    ?? UInt32(route.rtm_table)
                guard tableID == UInt32(RT_TABLE_MAIN.rawValue) else { return }
                var interfaces: [Int32] = []
                if let output = attributes[UInt16(RTA_OIF.rawValue)] {
                    interfaces.append(Int32(bitPattern: mnl_attr_get_u32(output)))
                }
                if let multipath = attributes[UInt16(RTA_MULTIPATH.rawValue)] {
                    var remaining = Int(mnl_attr_get_payload_len(multipath))
                    var hop = courier_rtnh_first(mnl_attr_get_payload(multipath), remaining)
                    while let current = hop {
                        interfaces.append(current.pointee.rtnh_ifindex)
                        hop = courier_rtnh_next(current, &remaining)
                    }
                }
                table.defaultRoutes.append(
                    RouteTable.DefaultRoute(
                        family: route.rtm_family == UInt8(AF_INET) ? 4 : 6, interfaces: interfaces))
            }

            /// The message's attributes after a fixed header, by type (libmnl checks their bounds).
            private func attributes(of message: UnsafePointer<nlmsghdr>, headerSize: Int) -> [UInt16:
                UnsafePointer<nlattr>]
            {
                attributes = [:]
                let context = Unmanaged.passUnretained(self).toOpaque()
                _ = mnl_attr_parse(
                    message, UInt32(headerSize),
                    { attribute, context in
                        guard let attribute, let context else { return courier_mnl_cb_error }
                        let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
                        collector.attributes[mnl_attr_get_type(attribute)] = attribute
                        return courier_mnl_cb_ok
                    }, context)
                return attributes
            }
        }
    }
#endif
