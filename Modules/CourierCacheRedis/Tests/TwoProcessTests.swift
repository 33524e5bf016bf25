import Foundation
import Subprocess
import SystemPackage
import Testing

/// Two client processes, one Redis: the second gets a hit for what the first
/// stored, and a revalidation by one is seen by the other.
struct TwoProcessTests {
    @Test func twoProcessesShareOneCache() async throws {
        try await withRedis { server async throws in
            let start = 1_700_000_000
            // The first instance fetches from its upstream and stores.
            #expect(
                try await Self.probe(server, "first", start)
                    == "name=first-1 source=network upstream=1 conditional=false")
            // The second is served by what the first stored: its upstream sees nothing.
            #expect(
                try await Self.probe(server, "second", start)
                    == "name=first-1 source=cache upstream=0 conditional=false")
            // 100 s later the entry is stale: the first revalidates (304)…
            #expect(
                try await Self.probe(server, "first", start + 100)
                    == "name=first-1 source=revalidated upstream=1 conditional=true")
            // …and the second sees the refreshed entry, fresh, without asking.
            #expect(
                try await Self.probe(server, "second", start + 100)
                    == "name=first-1 source=cache upstream=0 conditional=false")
        }
    }

    /// Runs `courier-cache-redis-probe` (built beside this test binary) and
    /// returns the line it printed; fails the test with what it said otherwise.
    static func probe(_ server: RedisTestServer, _ name: String, _ seconds: Int) async throws -> String {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("courier-cache-redis-probe")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw RedisTestServerError("no probe at \(binary.path): build the package's tests first")
        }
        let result = try await Subprocess.run(
            .path(FilePath(binary.path)), arguments: Arguments(["\(server.port)", name, "\(seconds)"]),
            output: .string(limit: 1 << 16), error: .string(limit: 1 << 16))
        let printed = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(result.terminationStatus.isSuccess, "\(printed) \(result.standardError)")
        return printed
    }
}
