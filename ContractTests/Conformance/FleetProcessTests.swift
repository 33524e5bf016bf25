import CourierMockServer
import Foundation
import Subprocess
import SystemPackage
import Testing

/// Four client processes, one courier-mock, one real `redis-server`: the
/// fleet's rate limiter holds for all of them together, a pause one of them
/// learns holds for the others, and with Redis gone each keeps its share —
/// counted from the server's own journal. The limits are per hour and the
/// limiter fails at once (`.fail`), so that every count is exact however
/// fast or slow the machine runs the processes.
@Suite(.serialized)
struct FleetProcessTests {
    static let instances = 4

    /// What one probe process printed.
    struct Outcome: Sendable, Equatable {
        var sent = 0
        var limited = 0
        var refused = 0
        var other = 0
        var shared = true
    }

    /// Runs `courier-fleet-probe` (built beside this test binary).
    static func probe(
        redis: Int, namespace: String, requests: Int, burst: Int, server: MockServer, path: String,
        attempts: Int
    ) async throws -> Outcome {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("courier-fleet-probe")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw RedisTestServerError("no probe at \(binary.path): build the package's tests first")
        }
        let arguments = [
            "\(redis)", namespace, "\(instances)", "\(requests)", "\(burst)", server.baseURL, path,
            "\(attempts)",
        ]
        let result = try await Subprocess.run(
            .path(FilePath(binary.path)), arguments: Arguments(arguments), output: .string(limit: 1 << 16),
            error: .string(limit: 1 << 16))
        let printed = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(result.terminationStatus.isSuccess, "\(printed) \(result.standardError)")
        var outcome = Outcome()
        for pair in printed.split(separator: " ") {
            let parts = pair.split(separator: "=")
            guard parts.count == 2 else { continue }
            let number = Int(parts[1]) ?? -1
            switch parts[0] {
            case "sent": outcome.sent = number
            case "limited": outcome.limited = number
            case "refused": outcome.refused = number
            case "other": outcome.other = number
            case "shared": outcome.shared = parts[1] == "true"
            default: continue
            }
        }
        return outcome
    }

    /// The four processes at once.
    static func fleet(
        redis: Int, namespace: String, requests: Int, burst: Int, server: MockServer, path: String,
        attempts: Int
    ) async throws -> [Outcome] {
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            for _ in 0..<instances {
                group.addTask {
                    try await probe(
                        redis: redis, namespace: namespace, requests: requests, burst: burst, server: server,
                        path: path, attempts: attempts)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    static func arrivals(_ server: MockServer, _ path: String) -> Int {
        server.journal.entries.filter { $0.request.path == path }.count
    }

    static let stubs = #"""
        {"mappings": [
          {"request": {"urlPath": "/busy"},
           "response": {"status": 429, "headers": {"Retry-After": "3600"}, "body": "slow down"}},
          {"request": {"urlPath": "/orders"}, "response": {"body": "{}"}},
          {"request": {"urlPath": "/alone"}, "response": {"body": "{}"}}
        ]}
        """#

    @Test func fourProcessesBehaveAsOneClient() async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<fleet>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let redis = try await RedisTestServer.start()
            // 1. One rate for the fleet: 50 an hour, all at once; 4 × 30 attempts.
            let shared = try await Self.fleet(
                redis: redis.port, namespace: "rate", requests: 50, burst: 50, server: server,
                path: "/orders",
                attempts: 30)
            #expect(Self.arrivals(server, "/orders") == 50)
            #expect(shared.map(\.sent).reduce(0, +) == 50)
            #expect(shared.map(\.limited).reduce(0, +) == 70)
            #expect(shared.allSatisfy { $0.other == 0 && $0.shared })

            // 2. A pause one instance learns holds for the others: its 429
            //    (Retry-After: 3600) is the only request that reaches /busy.
            let first = try await Self.probe(
                redis: redis.port, namespace: "pause", requests: 1_000, burst: 1_000, server: server,
                path: "/busy", attempts: 1)
            #expect(first == Outcome(refused: 1))
            let others = try await Self.fleet(
                redis: redis.port, namespace: "pause", requests: 1_000, burst: 1_000, server: server,
                path: "/busy", attempts: 5)
            #expect(others.allSatisfy { $0 == Outcome(limited: 5) }, "\(others)")
            #expect(Self.arrivals(server, "/busy") == 1)

            // 3. Redis gone: every call still ends, each instance with its
            //    share (40 an hour ÷ 4 instances = 10).
            await redis.stop()
            let alone = try await Self.fleet(
                redis: redis.port, namespace: "alone", requests: 40, burst: 40, server: server,
                path: "/alone",
                attempts: 30)
            #expect(alone.allSatisfy { $0 == Outcome(sent: 10, limited: 20, shared: false) }, "\(alone)")
            #expect(Self.arrivals(server, "/alone") == 40)
        }
    }
}
