// What a Redis hit costs: a 1 KB response through the whole pipeline
// (APIClient.response) answered by RedisStore, next to a raw GET of the same
// key from C (hiredis, the floor) and the same call over the network to
// courier-mock (CurlTransport); then throughput with 32 calls at once.
// Wall µs per call, medians of interleaved rounds, and the ratio to the raw
// GET per round.
//
// Usage: courier-redis-bench --url BASE_URL --redis-port PORT [rounds=7] [--calls N]
//   BASE_URL serves GET /bench/user with the 1 KB envelope (scripts/bench-redis starts it).

import BenchSupport
import CBenchHiredis
import CourierCache
import CourierCacheRedis
import CourierCodable
import CourierCore
import CourierCurl
import Foundation

var rounds = 7
var calls = 20_000
var baseURL = ""
var redisPort = 0
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--url": baseURL = arguments.next() ?? ""
    case "--redis-port": redisPort = arguments.next().flatMap(Int.init) ?? 0
    case "--calls": calls = arguments.next().flatMap(Int.init) ?? calls
    default: rounds = Int(argument) ?? rounds
    }
}
guard !baseURL.isEmpty, redisPort > 0 else {
    report("usage: courier-redis-bench --url BASE_URL --redis-port PORT [rounds] [--calls N]")
    exit(2)
}

let node = Node("bench", baseURL: baseURL + "/bench")
let raw = Endpoint<RawResponse>(.get("user"), on: node)
let cached = raw.cache(.cancelNetwork)
let store = RedisStore(.init(endpoint: .tcp(host: "127.0.0.1", port: redisPort), namespace: "bench"))
try await store.removeAll()

func client(cache: ResponseCache? = nil) -> APIClient {
    var configuration = APIClient.Configuration(transport: CurlTransport.shared, decoder: .codable)
    configuration.cache = cache
    return APIClient(configuration: configuration)
}
let network = client()
/// Redis as the only tier: every call a Redis hit.
let redisCache = ResponseCache(memory: nil, disk: store)
let shared = client(cache: redisCache)
_ = try await shared.response(cached)
await redisCache.settle()

// The key the store wrote, for the raw GET.
/// The raw baseline's connection. @unchecked Sendable: only the raw GET uses
/// it, one call at a time from the benchmark's one loop (never in the
/// concurrent part), so no two threads touch it at once.
final class RawRedis: @unchecked Sendable {
    let context: UnsafeMutablePointer<redisContext>
    init?(port: Int) {
        guard let context = redisConnect("127.0.0.1", Int32(port)), context.pointee.err == 0 else {
            return nil
        }
        self.context = context
    }
}
guard let rawRedis = RawRedis(port: redisPort) else {
    report("courier-redis-bench: cannot connect to Redis")
    exit(1)
}
let context = rawRedis.context
let rawKey = redisCommandArgvStrings(context, ["KEYS", "courier:{bench:v1}:e:*"]) ?? ""
guard !rawKey.isEmpty, courier_bench_redis_get(context, rawKey) > 1000 else {
    report("courier-redis-bench: the entry is not in Redis")
    exit(1)
}

/// The first element of an array reply, as text.
func redisCommandArgvStrings(_ context: UnsafeMutablePointer<redisContext>, _ words: [String]) -> String? {
    var pointers = words.map { strdup($0) }
    defer { for pointer in pointers { free(pointer) } }
    var lengths = words.map { $0.utf8.count }
    let reply = pointers.withUnsafeMutableBufferPointer { argv in
        argv.withMemoryRebound(to: UnsafePointer<CChar>?.self) { argv in
            redisCommandArgv(context, Int32(words.count), argv.baseAddress, &lengths)
        }
    }
    guard let reply = reply?.assumingMemoryBound(to: redisReply.self) else { return nil }
    defer { freeReplyObject(reply) }
    guard reply.pointee.elements > 0, let first = reply.pointee.element[0], let text = first.pointee.str
    else {
        return nil
    }
    return String(cString: text)
}

enum Workload: String, CaseIterable {
    case rawGet = "raw GET from C (hiredis): the floor"
    case redisHit = "Redis hit through the pipeline (RedisStore)"
    case network = "network: CurlTransport → courier-mock"
}

struct BenchFailure: Error {}

func once(_ workload: Workload) async throws {
    switch workload {
    case .rawGet: guard courier_bench_redis_get(rawRedis.context, rawKey) > 0 else { throw BenchFailure() }
    case .redisHit: guard try await shared.response(cached).attempts == 0 else { throw BenchFailure() }
    case .network: _ = try await network.response(raw)
    }
}

func measure(_ workload: Workload, calls count: Int) async throws -> Double {
    let start = ContinuousClock.now
    for _ in 0..<count { try await once(workload) }
    return seconds(ContinuousClock.now - start) / Double(count) * 1e6
}

func throughput(_ workload: Workload, calls count: Int, concurrency: Int) async throws -> Double {
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                for _ in stride(from: worker, to: count, by: concurrency) { try await once(workload) }
            }
        }
        try await group.waitForAll()
    }
    return Double(count) / seconds(ContinuousClock.now - start)
}

for workload in Workload.allCases { _ = try await measure(workload, calls: calls / 20) }
var results: [Workload: [Double]] = [:]
var concurrent: [Workload: [Double]] = [:]
for round in 0..<rounds {
    let order = round.isMultiple(of: 2) ? Workload.allCases : Workload.allCases.reversed()
    for workload in order {
        let count = workload == .network ? calls / 4 : calls
        results[workload, default: []].append(try await measure(workload, calls: count))
        if workload != .rawGet {
            concurrent[workload, default: []].append(
                try await throughput(workload, calls: count, concurrency: 32))
        }
    }
    report("courier-redis-bench: round \(round + 1) of \(rounds) done")
}

func format(_ value: Double) -> String { String(format: "%.2f", value) }
let floor = results[.rawGet, default: []]
print("Medians of \(rounds) interleaved rounds, \(calls) calls per round (a quarter over the network).")
print("A 1 KB response; the client on one core, Redis and courier-mock on the other.")
print()
print("| workload | wall µs/call | × raw GET | calls/s, 32 at once |")
print("|---|---|---|---|")
for workload in Workload.allCases {
    let values = results[workload, default: []]
    let ratio = median(zip(values, floor).map { $0 / $1 })
    let rate = concurrent[workload].map { String(format: "%.0f", median($0)) } ?? "—"
    print("| \(workload.rawValue) | \(format(median(values))) | \(format(ratio))x | \(rate) |")
}
redisFree(context)
