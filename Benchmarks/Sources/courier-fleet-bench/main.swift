// What the rate limiter costs. In memory: a call through the whole
// pipeline over a stub transport, with and without a RateLimiter whose
// limit is never reached (LocalRateLimitStore) — the difference is the
// limiter. On Redis: one RedisRateLimitStore decision next to a raw
// EVALSHA of the same script from C (hiredis, the floor), one at a time.
// Wall µs per call, medians of interleaved rounds, ratios per round.
//
// Usage: courier-fleet-bench --redis-port PORT [rounds=7] [--calls N]

import BenchSupport
import CBenchHiredis
@_spi(Locking) import CourierCore
import CourierFleet
import CourierResilience
import CourierTesting
import Foundation

var rounds = 7
var calls = 50_000
var redisPort = 0
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--redis-port": redisPort = arguments.next().flatMap(Int.init) ?? 0
    case "--calls": calls = arguments.next().flatMap(Int.init) ?? calls
    default: rounds = Int(argument) ?? rounds
    }
}
guard redisPort > 0 else {
    report("usage: courier-fleet-bench --redis-port PORT [rounds] [--calls N]")
    exit(2)
}

let node = Node("bench", baseURL: "https://bench.example")
let endpoint = Endpoint<RawResponse>(.get("user"), on: node)
let stub = StubTransport.immediate(.json("{}"))
let plain = APIClient(configuration: .init(transport: stub))
var limitedConfiguration = APIClient.Configuration(transport: stub)
limitedConfiguration.rateLimiter = RateLimiter(RateLimit(requests: 1_000_000_000, per: .seconds(1)))
let limited = APIClient(configuration: limitedConfiguration)

let fleet = FleetState(
    .init(
        endpoint: .tcp(host: "127.0.0.1", port: redisPort), namespace: "bench", expectedInstances: 1,
        commandTimeout: .seconds(5)))
let shared = RedisRateLimitStore(fleet)
let limit = RateLimit(requests: 1_000_000_000, per: .seconds(1))

/// The raw floor's connection. @unchecked Sendable: only the raw EVALSHA
/// uses it, one call at a time from the benchmark's one loop.
final class RawRedis: @unchecked Sendable {
    let context: UnsafeMutablePointer<redisContext>
    init?(port: Int) {
        guard let context = redisConnect("127.0.0.1", Int32(port)), context.pointee.err == 0 else {
            return nil
        }
        self.context = context
    }

    /// Runs `words` and returns the reply's type (0 when there was none).
    func command(_ words: [String]) -> (type: Int32, text: String?) {
        var pointers = words.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        var lengths = words.map { $0.utf8.count }
        let reply = pointers.withUnsafeMutableBufferPointer { argv in
            argv.withMemoryRebound(to: UnsafePointer<CChar>?.self) { argv in
                redisCommandArgv(context, Int32(words.count), argv.baseAddress, &lengths)
            }
        }
        guard let reply = reply?.assumingMemoryBound(to: redisReply.self) else { return (0, nil) }
        defer { freeReplyObject(reply) }
        return (reply.pointee.type, reply.pointee.str.map { String(cString: $0) })
    }
}
guard let raw = RawRedis(port: redisPort),
    let digest = raw.command(["SCRIPT", "LOAD", RedisRateLimitStore.reserveScript]).text
else {
    report("courier-fleet-bench: cannot connect to Redis, or load the script")
    exit(1)
}
// The same arguments the store sends for this limit: interval 1 µs, no tolerance, no wait.
let rawArguments = ["EVALSHA", digest, "1", "courier:{bench}:raw", "1", "0", "0"]

enum Workload: String, CaseIterable {
    case plain = "call over a stub, no limiter"
    case limited = "call over a stub, local RateLimiter"
    case rawEvalsha = "raw EVALSHA of the script from C (hiredis): the floor"
    case redisDecision = "RedisRateLimitStore.reserve"
}

struct BenchFailure: Error {}

func once(_ workload: Workload) async throws {
    switch workload {
    case .plain: _ = try await plain.send(endpoint)
    case .limited: _ = try await limited.send(endpoint)
    case .rawEvalsha: guard raw.command(rawArguments).type == REDIS_REPLY_ARRAY else { throw BenchFailure() }
    case .redisDecision:
        guard case .go = await shared.reserve("https://bench.example", limit: limit, maxWait: .zero) else {
            throw BenchFailure()
        }
    }
}

func measure(_ workload: Workload, calls count: Int) async throws -> Double {
    let start = ContinuousClock.now
    for _ in 0..<count { try await once(workload) }
    return seconds(ContinuousClock.now - start) / Double(count) * 1e6
}

for workload in Workload.allCases { _ = try await measure(workload, calls: calls / 20) }
var results: [Workload: [Double]] = [:]
var limiterCost: [Double] = []
var redisRatio: [Double] = []
for round in 0..<rounds {
    let order = round.isMultiple(of: 2) ? Workload.allCases : Workload.allCases.reversed()
    var this: [Workload: Double] = [:]
    for workload in order {
        let count = workload == .plain || workload == .limited ? calls : calls / 5
        this[workload] = try await measure(workload, calls: count)
        results[workload, default: []].append(this[workload] ?? 0)
    }
    limiterCost.append((this[.limited] ?? 0) - (this[.plain] ?? 0))
    redisRatio.append((this[.redisDecision] ?? 0) / max(this[.rawEvalsha] ?? 1, 0.001))
    report("courier-fleet-bench: round \(round + 1) of \(rounds) done")
}
for workload in Workload.allCases {
    let name = workload.rawValue.padding(toLength: 58, withPad: " ", startingAt: 0)
    print(name + String(format: "%8.2f µs", median(results[workload] ?? [])))
}
print(
    String(format: "local limiter per call (median of per-round differences): %.2f µs", median(limiterCost)))
print(String(format: "Redis decision ÷ raw EVALSHA (median of per-round ratios): %.2f×", median(redisRatio)))

// How close to a per-second limit a fleet runs with `.wait`: four instances
// (each its own FleetState: its own connection and thread) share 400 calls
// a second on Redis, burst 1, each sending 200 calls one after another over
// a stub that stamps each arrival. The rate is arrivals ÷ the span between
// the first and the last, over the limit; once, after the rounds.
final class Arrivals: Sendable {
    let stamps = Locked<[ContinuousClock.Instant]>([])
    var transport: StubTransport {
        StubTransport { [self] _ in
            stamps.withLock { $0.append(ContinuousClock.now) }
            return .json("{}")
        }
    }
}
let arrivals = Arrivals()
let fleetLimit = RateLimit(requests: 400, per: .seconds(1), burst: 1)
let instances = (0..<4).map { _ in
    var configuration = APIClient.Configuration(transport: arrivals.transport)
    configuration.rateLimiter = RateLimiter(
        fleetLimit, per: .host, whenLimited: .wait,
        store: RedisRateLimitStore(
            FleetState(
                .init(
                    endpoint: .tcp(host: "127.0.0.1", port: redisPort),
                    namespace: "bench-rate-\(rounds)-\(calls)",
                    expectedInstances: 4, commandTimeout: .seconds(5)))))
    return APIClient(configuration: configuration)
}
try await withThrowingTaskGroup(of: Void.self) { group in
    for client in instances {
        group.addTask { for _ in 0..<200 { _ = try await client.send(endpoint) } }
    }
    try await group.waitForAll()
}
let stamps = arrivals.stamps.withLock { $0 }.sorted()
if let first = stamps.first, let last = stamps.last, stamps.count > 1 {
    let rate = Double(stamps.count - 1) / seconds(last - first)
    print(
        String(
            format: "4 instances, .wait, 400/s shared on Redis: %.1f calls/s over %d calls = %.3f× the limit",
            rate, stamps.count, rate / 400))
}
