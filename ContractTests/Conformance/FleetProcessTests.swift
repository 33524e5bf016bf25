import CourierMockServer
import Foundation
import Subprocess
import SystemPackage
import Testing

/// Four client processes, one courier-mock, one real `redis-server`: the
/// fleet's rate limiter holds for all of them together, a pause one of them
/// learns from the server's `RateLimit` field holds for the others, and with
/// Redis gone each keeps its share; one token fetch serves them all; one
/// instance's failures open the circuit for every instance; one instance's
/// calls fund another's retries — counted from the server's own journal.
/// Limits, windows and open durations are an hour long and the limiter
/// fails at once (`.fail`), so that every count is exact however fast or
/// slow the machine runs the processes.
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
        attempts: Int, mode: String = "rate"
    ) async throws -> Outcome {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("courier-fleet-probe")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw RedisTestServerError("no probe at \(binary.path): build the package's tests first")
        }
        let arguments = [
            "\(redis)", namespace, "\(instances)", "\(requests)", "\(burst)", server.baseURL, path,
            "\(attempts)", mode,
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
        attempts: Int, mode: String = "rate"
    ) async throws -> [Outcome] {
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            for _ in 0..<instances {
                group.addTask {
                    try await probe(
                        redis: redis, namespace: namespace, requests: requests, burst: burst, server: server,
                        path: path, attempts: attempts, mode: mode)
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
          {"request": {"urlPath": "/busy"}, "response": {"body": "{}"}},
          {"request": {"urlPath": "/orders"}, "response": {"body": "{}"}},
          {"request": {"urlPath": "/alone"}, "response": {"body": "{}"}},
          {"request": {"urlPath": "/down"}, "response": {"status": 503}},
          {"request": {"urlPath": "/funded"}, "response": {"body": "{}"}},
          {"request": {"urlPath": "/flaky"}, "response": {"status": 503}},
          {"request": {"method": "POST", "urlPath": "/token"},
           "response": {"body": "{\"access\": \"fleet-token\"}"}},
          {"request": {"urlPath": "/me", "headers": {"Authorization": {"equalTo": "Bearer fleet-token"}}},
           "response": {"body": "{}"}}
        ]}
        """#

    /// One courier-mock and one `redis-server` for a test, and probes run against them.
    struct Servers {
        let server: MockServer
        let redis: RedisTestServer

        /// One probe process.
        func probe(
            _ namespace: String, _ path: String, attempts: Int, mode: String = "rate", requests: Int = 1_000,
            burst: Int = 1_000
        ) async throws -> Outcome {
            try await FleetProcessTests.probe(
                redis: redis.port, namespace: namespace, requests: requests, burst: burst, server: server,
                path: path, attempts: attempts, mode: mode)
        }

        /// Four probe processes at once.
        func fleet(
            _ namespace: String, _ path: String, attempts: Int, mode: String = "rate", requests: Int = 1_000,
            burst: Int = 1_000
        ) async throws -> [Outcome] {
            try await FleetProcessTests.fleet(
                redis: redis.port, namespace: namespace, requests: requests, burst: burst, server: server,
                path: path, attempts: attempts, mode: mode)
        }

        /// How many requests for `path` the server saw.
        func arrivals(_ path: String) -> Int { FleetProcessTests.arrivals(server, path) }
    }

    /// Runs `body` with a courier-mock serving ``stubs`` (and what
    /// `configure` adds) and a `redis-server`, stopped afterwards.
    static func withServers(
        _ configure: (inout MockServer.Configuration) -> Void = { _ in },
        _ body: @Sendable (Servers) async throws -> Void
    ) async throws {
        var configuration = MockServer.Configuration(
            stubs: try ContractLoader.parse(Array(stubs.utf8), file: "<fleet>"))
        configure(&configuration)
        try await withMockServer(configuration) { server async throws in
            let redis = try await RedisTestServer.start()
            do {
                try await body(Servers(server: server, redis: redis))
            } catch {
                await redis.stop()
                throw error
            }
            await redis.stop()
        }
    }

    @Test func fourProcessesBehaveAsOneClient() async throws {
        // The server's own limit on /busy: 5 an hour per client address,
        // announced with the IETF RateLimit fields.
        let limitBusy: (inout MockServer.Configuration) -> Void = {
            $0.rateLimit = MockRateLimit(requests: 5, window: 3_600, pathPrefix: "/busy")
        }
        try await Self.withServers(limitBusy) { run in
            // 1. One rate for the fleet: 50 an hour, all at once; 4 × 30 attempts.
            let shared = try await run.fleet("rate", "/orders", attempts: 30, requests: 50, burst: 50)
            #expect(run.arrivals("/orders") == 50)
            #expect(shared.map(\.sent).reduce(0, +) == 50)
            #expect(shared.map(\.limited).reduce(0, +) == 70)
            #expect(shared.allSatisfy { $0.other == 0 && $0.shared })

            // 2. A pause one instance learns holds for the others: the
            //    server's fifth answer says `RateLimit: "default";r=0;t=…`,
            //    and nobody sends to /busy again within the hour.
            let first = try await run.probe("pause", "/busy", attempts: 7)
            #expect(first == Outcome(sent: 5, limited: 2))
            let others = try await run.fleet("pause", "/busy", attempts: 5)
            #expect(others.allSatisfy { $0 == Outcome(limited: 5) }, "\(others)")
            #expect(run.arrivals("/busy") == 5)
            #expect(run.server.journal.entries.allSatisfy { $0.status != 429 })

            // 3. Redis gone: every call still ends, each instance with its
            //    share (40 an hour ÷ 4 instances = 10).
            await run.redis.stop()
            let alone = try await run.fleet("alone", "/alone", attempts: 30, requests: 40, burst: 40)
            #expect(alone.allSatisfy { $0 == Outcome(sent: 10, limited: 20, shared: false) }, "\(alone)")
            #expect(run.arrivals("/alone") == 40)
        }
    }

    /// One token fetch for the fleet: four processes start at once with no
    /// credential; one takes the lock and fetches, the others wait and read
    /// it (sealed) from Redis. The server saw one `POST /token`, and every
    /// call carried its token.
    @Test func fourProcessesFetchOneToken() async throws {
        try await Self.withServers { run in
            let outcomes = try await run.fleet("token", "/me", attempts: 5, mode: "token")
            #expect(outcomes.allSatisfy { $0 == Outcome(sent: 5) }, "\(outcomes)")
            #expect(run.arrivals("/token") == 1)
            let calls = run.server.journal.entries.filter { $0.request.path == "/me" }
            #expect(calls.count == 20)
            #expect(calls.allSatisfy { $0.request.header("Authorization") == "Bearer fleet-token" })
        }
    }

    /// A circuit the fleet shares: one instance's four failures cross the
    /// threshold once, and the circuit is open for every instance — the
    /// other three send nothing, though none of them saw a failure.
    @Test func oneInstancesFailuresOpenTheCircuitForAll() async throws {
        try await Self.withServers { run in
            // Four failures, then the fleet's verdict: open.
            let first = try await run.probe("circuit", "/down", attempts: 5, mode: "circuit")
            #expect(first == Outcome(limited: 1, refused: 4))
            let others = try await run.fleet("circuit", "/down", attempts: 5, mode: "circuit")
            #expect(others.allSatisfy { $0 == Outcome(limited: 5) }, "\(others)")
            #expect(run.arrivals("/down") == 4)
        }
    }

    /// A retry budget the fleet shares: one instance's twenty calls fund
    /// another's retries (20 % of the fleet's calls), which its own five
    /// calls alone would not (one retry).
    @Test func oneInstancesCallsFundAnothersRetries() async throws {
        try await Self.withServers { run in
            let funding = try await run.probe("budget", "/funded", attempts: 20, mode: "budget")
            #expect(funding == Outcome(sent: 20))
            let failing = try await run.probe("budget", "/flaky", attempts: 5, mode: "budget")
            #expect(failing == Outcome(refused: 5))
            // 25 calls for the fleet: 5 retries (0.2 × 25), each granted
            // when it fits the calls counted so far — the 21st and 22nd
            // calls two each, the 25th one. Alone: 1.
            #expect(run.arrivals("/flaky") == 5 + 5)
        }
    }
}
