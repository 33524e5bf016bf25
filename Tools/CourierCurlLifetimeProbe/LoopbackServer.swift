import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 for the probe, on threads of its
/// own: `/ok` answers `200 ok` (keep-alive), `/reset…` resets the connection,
/// and any path starting `/hold` is read and answered only when the probe
/// says so (``answerHeld(prefix:)``). The probe waits for requests to
/// arrive (``waitForRequests(_:prefix:)``), never for time.
final class LoopbackServer: Sendable {
    /// The bound port.
    let port: UInt16
    private let listener: Int32
    /// Every request's path so far, and the probe's waits for them.
    private let seen = Mutex<(paths: [String], waiters: [Waiter])>(([], []))

    private struct Waiter {
        let prefix: String
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }
    /// Connections held open (`/hold…`) with the path they asked for, closed by ``stop()``.
    private let held = Mutex<[(connection: Int32, path: String)]>([])

    private init(listener: Int32, port: UInt16) {
        self.listener = listener
        self.port = port
    }

    /// Binds an ephemeral loopback port and starts accepting.
    static func start() throws -> LoopbackServer {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ProbeFailure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 512) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else { throw ProbeFailure("bind or listen: errno \(errno)") }
        let server = LoopbackServer(listener: listener, port: UInt16(bigEndian: address.sin_port))
        Thread { server.acceptLoop() }.start()
        return server
    }

    /// Stops accepting and closes every held connection.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        for (connection, _) in held.withLock({ $0 }) { close(connection) }
    }

    /// Answers, late, every held request whose path starts with `prefix`:
    /// libcurl reads those bytes only if it still has the transfer.
    func answerHeld(prefix: String) {
        for (connection, path) in held.withLock({ $0 }) where path.hasPrefix(prefix) {
            _ = send(connection, Self.okResponse, Self.okResponse.count, Int32(MSG_NOSIGNAL))
        }
    }

    private static let okResponse = Array(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok".utf8)

    /// Returns once the server has read `count` requests whose path starts with `prefix`.
    func waitForRequests(_ count: Int, prefix: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = seen.withLock { seen in
                guard seen.paths.count(where: { $0.hasPrefix(prefix) }) < count else { return true }
                seen.waiters.append(Waiter(prefix: prefix, count: count, continuation: continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Records a request's path and resumes the waits it completes.
    private func record(_ path: String) {
        let ready = seen.withLock { seen in
            seen.paths.append(path)
            let paths = seen.paths
            var ready: [Waiter] = []
            seen.waiters.removeAll { waiter in
                let done = paths.count(where: { $0.hasPrefix(waiter.prefix) }) >= waiter.count
                if done { ready.append(waiter) }
                return done
            }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            Thread { self.serve(connection) }.start()
        }
    }

    /// Reads requests on one connection and answers as its path says.
    private func serve(_ connection: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let terminator = Array("\r\n\r\n".utf8)
            while pending.firstRange(of: terminator) == nil {
                let count = recv(connection, &chunk, chunk.count, 0)
                guard count > 0 else {
                    close(connection)
                    return
                }
                pending += chunk[0..<count]
            }
            guard let end = pending.firstRange(of: terminator) else { return }
            let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
            pending.removeSubrange(..<end.upperBound)
            let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            record(path)
            if path.hasPrefix("/hold") {
                held.withLock { $0.append((connection, path)) }
                return
            }
            if path.hasPrefix("/reset") {
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(
                    connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                close(connection)
                return
            }
            let answer = Self.okResponse
            guard send(connection, answer, answer.count, Int32(MSG_NOSIGNAL)) == answer.count else {
                close(connection)
                return
            }
        }
    }
}

/// Why the probe failed.
struct ProbeFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
