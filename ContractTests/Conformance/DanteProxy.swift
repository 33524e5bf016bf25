import Foundation
import Subprocess
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A real dante SOCKS5 server (Debian's `dante-server`, installed by the
/// test command) for one test, on a free loopback port, without
/// authentication. Its log — one line per connection it made or refused,
/// with the addresses on both sides — is read once it has exited. Ready when
/// it says it runs, which it does once it listens.
final class DanteProxy: Sendable {
    let port: Int
    private let directory: URL
    private let process: TestServerProcess

    private init(port: Int, directory: URL, process: TestServerProcess) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// Starts dante; a port taken between the probe and the bind is retried.
    static func start() async throws -> DanteProxy {
        var lastError: (any Error)?
        for _ in 0..<5 {
            do {
                return try await launch(port: try freeLoopbackPort())
            } catch let error as SquidError where error.portTaken {
                lastError = error
            }
        }
        throw lastError ?? SquidError("danted did not start")
    }

    private static func launch(port: Int) async throws -> DanteProxy {
        let binary = "/usr/sbin/danted"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw SquidError(
                "no danted at \(binary): run scripts/bootstrap dante-server (the test command does)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dante-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let folder = directory.path
        let user = getuid() == 0 ? "nobody" : String(cString: getpwuid(getuid()).pointee.pw_name)
        let configuration = [
            "logoutput: stderr \(folder)/dante.log", "internal: 127.0.0.1 port = \(port)",
            "external: 127.0.0.1",
            "clientmethod: none", "socksmethod: none", "user.privileged: \(getuid() == 0 ? "root" : user)",
            "user.unprivileged: \(user)", "client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }",
            "socks pass { from: 127.0.0.0/8 to: 0.0.0.0/0 log: connect error }",
        ]
        try (configuration.joined(separator: "\n") + "\n").write(
            toFile: "\(folder)/danted.conf", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder)
        // dante listens on its internal address before it says it runs.
        do {
            let process = try await TestServerProcess.start(
                binary, ["-f", "\(folder)/danted.conf", "-N", "1"],
                readyWhen: { $0.contains("Dante/server") && $0.contains("running") })
            return DanteProxy(port: port, directory: directory, process: process)
        } catch let early as TestServerProcess.ExitedEarly {
            let output = early.lines.joined(separator: "\n")
            try? FileManager.default.removeItem(at: directory)
            throw SquidError(
                "danted on port \(port) exited before it was ready:\n\(output)",
                portTaken: output.contains("Address already in use"))
        }
    }

    /// Stops dante, waits for it to exit, and returns its log's pass and
    /// block lines (`pass(1): tcp/connect [: 127.0.0.1.40002 127.0.0.1.1080 -> … localhost.8080`).
    func stop() async -> [String] {
        await process.stop()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text =
            (try? String(contentsOfFile: directory.appendingPathComponent("dante.log").path, encoding: .utf8))
            ?? ""
        return text.split(separator: "\n").map(String.init).filter {
            $0.contains("pass(") || $0.contains("block(")
        }
    }
}

/// Runs `body` with a fresh dante and returns its result and dante's log;
/// dante is stopped whatever happens.
func withDante<T: Sendable>(_ body: (DanteProxy) async throws -> T) async throws -> (T, [String]) {
    let dante = try await DanteProxy.start()
    do {
        let result = try await body(dante)
        return (result, await dante.stop())
    } catch {
        _ = await dante.stop()
        throw error
    }
}
