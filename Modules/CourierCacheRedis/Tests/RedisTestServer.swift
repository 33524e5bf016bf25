@_spi(Locking) import CourierCore
import Foundation
import Subprocess
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A real `redis-server` for one test: on a free loopback port, with a
/// temporary directory, no persistence; stopped (or killed) by the test.
///
/// Readiness is an event — the server's own "Ready to accept connections"
/// line — never a sleep. A machine without `redis-server` fails the test
/// with a message saying how to install it (`scripts/bootstrap` does).
final class RedisTestServer: Sendable {
    let port: Int
    let directory: URL
    private let arguments: [String]
    private let process = Locked<Running?>(nil)

    private struct Running {
        var pid: pid_t
        var task: Task<Void, any Error>
    }

    /// Starts a server; `arguments` are extra `redis-server` options.
    static func start(_ arguments: [String] = []) async throws -> RedisTestServer {
        var lastError: (any Error)?
        for _ in 0..<5 {
            let server = RedisTestServer(port: try freePort(), arguments: arguments)
            do {
                try await server.launch()
                return server
            } catch let error as RedisTestServerError where error.portTaken {
                lastError = error  // another process took the port between the probe and the bind
            }
        }
        throw lastError ?? RedisTestServerError("could not start redis-server")
    }

    private init(port: Int, arguments: [String]) {
        self.port = port
        self.arguments = arguments
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-redis-\(UUID().uuidString)")
    }

    /// Starts (or starts again, after ``kill()``) on the same port and directory.
    func launch() async throws {
        let binary = ProcessInfo.processInfo.environment["COURIER_REDIS_SERVER"] ?? "/usr/bin/redis-server"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw RedisTestServerError(
                "no redis-server at \(binary): run scripts/bootstrap (it installs Debian's redis-server), "
                    + "or set COURIER_REDIS_SERVER")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let options =
            [
                "--port", "\(port)", "--bind", "127.0.0.1", "--dir", directory.path, "--save", "",
                "--appendonly", "no", "--daemonize", "no", "--loglevel", "notice", "--logfile", "",
            ] + arguments
        let (events, signal) = AsyncStream<String>.makeStream()
        let task = Task {
            defer { signal.finish() }
            _ = try await Subprocess.run(
                .path(FilePath(binary)), arguments: Arguments(options), input: .none, output: .sequence,
                error: .discarded
            ) { execution in
                signal.yield("pid \(execution.processIdentifier.value)")
                for try await line in execution.standardOutput.strings() { signal.yield(line) }
            }
        }
        var pid: pid_t?
        var seen: [String] = []
        for await line in events {
            seen.append(line)
            if line.hasPrefix("pid "), let value = pid_t(line.dropFirst(4)) { pid = value }
            if line.contains("Ready to accept connections"), let pid {
                // The run's own body keeps reading the server's output (into
                // the stream's buffer: a few lines), so its pipe never fills.
                process.withLock { $0 = Running(pid: pid, task: task) }
                return
            }
        }
        let output = seen.suffix(5).joined(separator: "\n")
        throw RedisTestServerError(
            "redis-server on port \(port) exited before it was ready:\n\(output)",
            portTaken: output.contains("Address already in use"))
    }

    /// Ends the server at once (SIGKILL), as a crash would, and waits for it to go.
    func kill() async {
        guard let running = process.withLock({ $0.take() }) else { return }
        _ = Glibc.kill(running.pid, SIGKILL)
        _ = try? await running.task.value
    }

    /// Stops the server and removes its directory.
    func stop() async {
        await kill()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RedisTestServerError("socket() failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0
            }
        }
        guard bound else { throw RedisTestServerError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Why a test's Redis could not start.
struct RedisTestServerError: Error, CustomStringConvertible {
    var description: String
    var portTaken = false

    init(_ description: String, portTaken: Bool = false) {
        self.description = description
        self.portTaken = portTaken
    }
}

/// Runs `body` with a fresh server, stopped afterwards whatever happens.
func withRedis<T>(_ arguments: [String] = [], _ body: (RedisTestServer) async throws -> T) async throws -> T {
    let server = try await RedisTestServer.start(arguments)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
