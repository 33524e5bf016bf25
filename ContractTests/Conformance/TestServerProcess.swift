import Subprocess
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A server process a test started (squid, dante), running until it is
/// signalled.
struct TestServerProcess: Sendable {
    let pid: pid_t
    /// The run, which keeps reading the server's standard error (so its
    /// pipe never fills) and ends when the server exits.
    let run: Task<Void, any Error>

    /// The server's last lines when it exited before saying it was ready.
    struct ExitedEarly: Error {
        let lines: [String]
    }

    /// Starts `binary` and returns once a line of its standard error
    /// satisfies `ready`: readiness is the server's own word, never a wait.
    /// - Throws: ``ExitedEarly`` with its last lines when it exits first.
    static func start(
        _ binary: String, _ arguments: [String], readyWhen ready: @escaping @Sendable (String) -> Bool
    ) async throws -> TestServerProcess {
        let (events, signal) = AsyncStream<String>.makeStream()
        let run = Task {
            defer { signal.finish() }
            _ = try await Subprocess.run(
                .path(FilePath(binary)), arguments: Arguments(arguments), input: .none, output: .discarded,
                error: .sequence
            ) { execution in
                signal.yield("pid \(execution.processIdentifier.value)")
                var told = false
                for try await line in execution.standardError.strings() where !told {
                    signal.yield(line)
                    if ready(line) {
                        told = true
                        signal.finish()
                    }
                }
            }
        }
        var pid: pid_t?
        var seen: [String] = []
        for await line in events {
            seen.append(line)
            if pid == nil, line.hasPrefix("pid ") {
                pid = pid_t(line.dropFirst(4))
            } else if let pid, ready(line) {
                return TestServerProcess(pid: pid, run: run)
            }
        }
        throw ExitedEarly(lines: Array(seen.suffix(8)))
    }

    /// Sends SIGTERM and waits for the server to exit.
    func stop() async {
        _ = Glibc.kill(pid, SIGTERM)
        _ = try? await run.value
    }
}
