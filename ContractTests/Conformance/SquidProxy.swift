import Foundation
import Subprocess
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A real squid (Debian's `squid`, installed by the test command) for one
/// test: an HTTP proxy on a free loopback port, its access log written to a
/// temporary folder with each request's method, URL, status and the
/// credential fields it arrived with — the proxy's own record of what it
/// was sent. Readiness is squid's own log line once it listens, never a
/// sleep; the log is read once squid has exited (a tunnel is logged when it
/// closes).
final class SquidProxy: Sendable {
    /// What the proxy asks of its clients.
    enum Authentication: Sendable {
        case none
        /// Basic or Digest, user `alice`, password `wonderland`.
        case required
    }

    static let user = "alice"
    static let password = "wonderland"

    let port: Int
    let directory: URL
    private let process: TestServerProcess

    /// One line of the access log.
    struct Entry: Sendable, CustomStringConvertible {
        var method: String
        var url: String
        var status: Int
        /// `Proxy-Authorization` as it arrived (percent-decoded); `nil` when absent.
        var proxyAuthorization: String?
        /// `Authorization` as it arrived at the proxy; `nil` when absent.
        var authorization: String?
        var description: String { "\(method) \(url) \(status)" }
    }

    private init(port: Int, directory: URL, process: TestServerProcess) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// Starts squid, an HTTPS proxy with `tls`'s server certificate when
    /// given; a port taken between the probe and the bind is retried.
    static func start(_ authentication: Authentication, tls: TLSFixture? = nil) async throws -> SquidProxy {
        var lastError: (any Error)?
        for _ in 0..<5 {
            do {
                return try await launch(authentication, tls: tls, port: try freeLoopbackPort())
            } catch let error as SquidError where error.portTaken {
                lastError = error
            }
        }
        throw lastError ?? SquidError("squid did not start")
    }

    private static func launch(
        _ authentication: Authentication, tls: TLSFixture?, port: Int
    ) async throws -> SquidProxy {
        let binary = "/usr/sbin/squid"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw SquidError("no squid at \(binary): run scripts/bootstrap squid (the test command does)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("squid-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Run as root, squid drops to its own user, which must write the logs.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        let folder = directory.path
        var listen = "http_port 127.0.0.1:\(port)"
        if let tls {
            // squid reads them after it has dropped to its own user.
            for (from, to) in [(tls.serverCertificatePath, "proxy.pem"), (tls.serverKeyPath, "proxy.key")] {
                try FileManager.default.copyItem(atPath: from, toPath: "\(folder)/\(to)")
                try FileManager.default.setAttributes(
                    [.posixPermissions: 0o644], ofItemAtPath: "\(folder)/\(to)")
            }
            listen = "https_port 127.0.0.1:\(port) tls-cert=\(folder)/proxy.pem tls-key=\(folder)/proxy.key"
        }
        var lines = [
            listen, "pid_filename none", "cache deny all", "cache_mem 0 MB",
            "logformat courier %rm %ru %>Hs |%{Proxy-Authorization}>h|%{Authorization}>h|",
            "access_log stdio:\(folder)/access.log courier", "cache_log \(folder)/cache.log",
            "coredump_dir \(folder)", "netdb_filename none", "pinger_enable off",
            "shutdown_lifetime 0 seconds",
            "debug_options ALL,1 93,5",
        ]
        switch authentication {
        case .none:
            lines += ["http_access allow all"]
        case .required:
            let hashed = try await Self.apr1(password)
            try "\(user):\(hashed)\n".write(toFile: "\(folder)/basic", atomically: true, encoding: .utf8)
            try "\(user):\(password)\n".write(toFile: "\(folder)/digest", atomically: true, encoding: .utf8)
            for file in ["basic", "digest"] {
                try FileManager.default.setAttributes(
                    [.posixPermissions: 0o644], ofItemAtPath: "\(folder)/\(file)")
            }
            lines += [
                "auth_param basic program /usr/lib/squid/basic_ncsa_auth \(folder)/basic",
                "auth_param basic realm courier",
                "auth_param digest program /usr/lib/squid/digest_file_auth \(folder)/digest",
                "auth_param digest realm courier", "acl authenticated proxy_auth REQUIRED",
                "http_access allow authenticated", "http_access deny all",
            ]
        }
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: "\(folder)/squid.conf", atomically: true, encoding: .utf8)
        // squid's "Accepting HTTP Socket connections" comes as it schedules
        // its listen(): a client connecting at once was sometimes refused.
        // The acceptor job's end (section 93 at level 5) comes after listen().
        do {
            let process = try await TestServerProcess.start(
                binary,
                // A service name per instance: squids side by side share no IPC names.
                ["-N", "-d", "5", "-n", "courier\(port)", "-f", "\(folder)/squid.conf"],
                readyWhen: { $0.contains("Comm::TcpAcceptor status out") })
            return SquidProxy(port: port, directory: directory, process: process)
        } catch let early as TestServerProcess.ExitedEarly {
            let output = early.lines.joined(separator: "\n")
            try? FileManager.default.removeItem(at: directory)
            throw SquidError(
                "squid on port \(port) exited before it was ready:\n\(output)",
                portTaken: output.contains("Address already in use")
                    || output.contains("Unable to open HTTP Socket")
                    || output.contains("Unable to open HTTPS Socket"))
        }
    }

    /// Stops squid, waits for it to exit, and returns its access log.
    func stop() async -> [Entry] {
        await process.stop()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text =
            (try? String(contentsOfFile: directory.appendingPathComponent("access.log").path, encoding: .utf8))
            ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "|", omittingEmptySubsequences: false)
            let head = parts.first?.split(separator: " ") ?? []
            // error:transaction-end-before-headers: a connection that sent
            // no request.
            guard parts.count >= 3, head.count >= 3, !head[1].hasPrefix("error:"), let status = Int(head[2])
            else {
                return nil
            }
            func field(_ raw: Substring) -> String? {
                raw == "-" ? nil : String(raw).removingPercentEncoding ?? String(raw)
            }
            return Entry(
                method: String(head[0]), url: String(head[1]), status: status,
                proxyAuthorization: field(parts[1]), authorization: field(parts[2]))
        }
    }

    /// `openssl passwd -apr1`: the hash basic_ncsa_auth reads.
    private static func apr1(_ password: String) async throws -> String {
        let result = try await Subprocess.run(
            .name("openssl"), arguments: ["passwd", "-apr1", password], output: .string(limit: 4096),
            error: .discarded)
        guard result.terminationStatus.isSuccess else { throw SquidError("openssl passwd failed") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Why a test's squid could not start.
struct SquidError: Error, CustomStringConvertible {
    var description: String
    var portTaken = false
    init(_ description: String, portTaken: Bool = false) {
        self.description = description
        self.portTaken = portTaken
    }
}

/// Runs `body` with a fresh squid (an HTTPS proxy with `tls`'s
/// certificate when given) and returns its result and the proxy's
/// access log; squid is stopped whatever happens.
func withSquid<T: Sendable>(
    _ authentication: SquidProxy.Authentication = .none, tls: TLSFixture? = nil,
    _ body: (SquidProxy) async throws -> T
) async throws -> (T, [SquidProxy.Entry]) {
    let squid = try await SquidProxy.start(authentication, tls: tls)
    do {
        let result = try await body(squid)
        return (result, await squid.stop())
    } catch {
        _ = await squid.stop()
        throw error
    }
}

/// Runs `body` with a port on 127.0.0.1 that refuses every connection for
/// as long as `body` runs: bound and never listening, so no other test can
/// take it meanwhile (a port merely found free could be).
func withRefusingPort<T: Sendable>(_ body: (Int) async throws -> T) async throws -> T {
    let (socket, port) = try boundLoopbackSocket()
    defer { close(socket) }
    return try await body(port)
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
func freeLoopbackPort() throws -> Int {
    let (socket, port) = try boundLoopbackSocket()
    close(socket)
    return port
}

/// A TCP socket bound to 127.0.0.1 on a port the kernel chose, not
/// listening, and that port.
private func boundLoopbackSocket() throws -> (socket: Int32, port: Int) {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw SquidError("socket() failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
            bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0
        }
    }
    guard bound else {
        close(socket)
        throw SquidError("no free port on 127.0.0.1")
    }
    return (socket, Int(UInt16(bigEndian: address.sin_port)))
}
