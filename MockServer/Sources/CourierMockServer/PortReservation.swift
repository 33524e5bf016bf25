import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps a port bound, without listening, while the server refuses
/// connections: a connection attempt is refused (the kernel answers with a
/// reset, as for a closed port), yet no other socket in this machine can be
/// given the port in the meantime. Bound (SO_REUSEPORT, as the listener)
/// before the listener closes and released after the next one listens. Without it, a server started by another
/// test between ``MockServer/refuseConnections()`` and
/// ``MockServer/acceptConnections()`` could be handed the freed port and
/// answer in its place.
struct PortReservation: Sendable {
    private let descriptor: Int32

    /// Binds a TCP socket to `address` and does not listen on it.
    /// - Throws: ``MockServerError`` naming the system error when the port cannot be held.
    init(_ address: SocketAddress) throws {
        let family: Int32
        switch address {
        case .v4: family = AF_INET
        case .v6: family = AF_INET6
        default: throw MockServerError("cannot hold a port of \(address)")
        }
        #if canImport(Darwin)
            let type = SOCK_STREAM
        #else
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #endif
        let descriptor = socket(family, type, 0)
        guard descriptor >= 0 else { throw MockServerError("socket: \(String(cString: strerror(errno)))") }
        // Accepted connections of the closed listener may sit in TIME_WAIT on
        // this port; the listener itself (SO_REUSEPORT too) is still open.
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockAddr { pointer, size in bind(descriptor, pointer, socklen_t(size)) }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw MockServerError(
                "cannot hold port \(address.port ?? 0) while refusing connections: \(reason)")
        }
        self.descriptor = descriptor
    }

    /// Frees the port.
    func release() { close(descriptor) }
}
