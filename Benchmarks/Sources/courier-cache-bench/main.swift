// What a cache hit costs next to the same call over the network: a 1 KB
// response through the whole pipeline (APIClient.send), answered by the
// memory tier, by the disk tier, by a per-call interceptor (the floor: a
// zero-attempt answer without a cache), and by courier-mock over
// CurlTransport. CPU µs per call for the whole process (getrusage) and wall
// µs per call; medians of interleaved rounds; "cache work" is a hit minus
// the floor, taken per round.
//
// Usage: courier-cache-bench --url BASE_URL [rounds=7] [--calls N] [--network-calls N] [--only TEXT]
//   --only NAME runs the workload named NAME alone, for a profiler
//   BASE_URL serves GET /bench/user with the 1 KB envelope (scripts/bench-cache starts courier-mock).

import BenchSupport
import CourierCache
import CourierCodable
import CourierCore
import CourierCurl
import Foundation
import HTTPTypes

struct User: Decodable, Sendable {
    let id: Int
    let name: String
    let bio: String
}

var rounds = 7
var calls = 50_000
var networkCalls = 5_000
var baseURL = ""
var only: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--url": baseURL = arguments.next() ?? ""
    case "--calls": calls = arguments.next().flatMap(Int.init) ?? calls
    case "--network-calls": networkCalls = arguments.next().flatMap(Int.init) ?? networkCalls
    case "--only": only = arguments.next()
    default: rounds = Int(argument) ?? rounds
    }
}
guard !baseURL.isEmpty else {
    report("usage: courier-cache-bench --url BASE_URL [rounds] [--calls N] [--network-calls N]")
    exit(2)
}

/// The 1 KB envelope courier-mock serves (scripts/bench-cache writes the same).
let body = Array(try Data(contentsOf: URL(fileURLWithPath: "Benchmarks/Fixtures/user-1k.json")))
let node = Node("bench", baseURL: baseURL + "/bench", envelope: .standard)
let plainNode = Node("bench", baseURL: baseURL + "/bench")
/// The response as it is, no envelope check: what the cache itself costs shows best.
let raw = Endpoint<RawResponse>(.get("user"), on: plainNode)
/// The envelope read during validation, then `data` decoded.
let typed = Endpoint<User>(.get("user"), on: node)
let cachedRaw = raw.cache(.cancelNetwork)
let keyText = "GET\nhttp://127.0.0.1:18181/bench/user\n-\n\n\n" + String(repeating: "x", count: 26)
let cachedTyped = typed.cache(.cancelNetwork)
let stored = RawResponse(
    head: HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), body: .bytes(body))

func client(cache: ResponseCache? = nil, interceptors: [any Interceptor] = []) -> APIClient {
    var configuration = APIClient.Configuration(
        transport: CurlTransport.shared, decoder: .codable, callInterceptors: interceptors)
    configuration.cache = cache
    return APIClient(configuration: configuration)
}

let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "courier-cache-bench-\(getpid())")
defer { try? FileManager.default.removeItem(at: cacheDirectory) }
let network = client()
let floor = client(interceptors: [ClosureInterceptor(name: "answers") { _, _, _ in stored }])
let memory = client(cache: ResponseCache(memory: MemoryStore()))
let disk = client(
    cache: ResponseCache(memory: nil, disk: try await DiskStore.open(directory: cacheDirectory)))

enum Workload: String, CaseIterable {
    case floor = "interceptor answers (zero attempts, no cache): the floor"
    case memoryHit = "memory hit"
    case diskHit = "disk hit"
    case network = "network: CurlTransport → courier-mock"
    case keyAlone = "SHA-256 of a 70-byte key alone (CacheKey(hashing:))"
    case floorTyped = "interceptor answers, envelope → model (Codable)"
    case memoryHitTyped = "memory hit, envelope → model (Codable)"
    case networkTyped = "network, envelope → model (Codable)"
}

struct BenchFailure: Error {}

@inline(never)
func once(_ workload: Workload) async throws {
    let reply: Int
    switch workload {
    case .floor: reply = try await floor.response(raw).attempts
    case .memoryHit: reply = try await memory.response(cachedRaw).attempts
    case .diskHit: reply = try await disk.response(cachedRaw).attempts
    case .network: reply = try await network.response(raw).attempts - 1
    case .floorTyped: reply = try await floor.response(typed).attempts
    case .keyAlone: reply = CacheKey(hashing: keyText).digest.isEmpty ? 1 : 0
    case .memoryHitTyped: reply = try await memory.response(cachedTyped).attempts
    case .networkTyped: reply = try await network.response(typed).attempts - 1
    }
    guard reply == 0 else { throw BenchFailure() }  // a hit made no attempt; the network one
}

func measure(_ workload: Workload, calls count: Int) async throws -> (cpu: Double, wall: Double) {
    let cpuStart = cpuSeconds()
    let wallStart = ContinuousClock.now
    for _ in 0..<count { try await once(workload) }
    let wall = seconds(ContinuousClock.now - wallStart)
    let cpu = cpuSeconds() - cpuStart
    return (cpu / Double(count) * 1e6, wall / Double(count) * 1e6)
}

// Fill both tiers (a network call each), then warm every path.
_ = try await memory.send(cachedRaw)
_ = try await disk.send(cachedRaw)
_ = try await memory.send(cachedTyped)
let (localCalls, remoteCalls) = (calls, networkCalls)
func count(_ workload: Workload) -> Int {
    workload == .network || workload == .networkTyped ? remoteCalls : localCalls
}
let workloads = Workload.allCases.filter { workload in only.map { workload.rawValue == $0 } ?? true }
for workload in workloads { _ = try await measure(workload, calls: count(workload) / 10) }

var results: [Workload: [(cpu: Double, wall: Double)]] = [:]
for round in 0..<rounds {
    // Alternate the order so that no workload always follows the same one.
    let order = round.isMultiple(of: 2) ? workloads : workloads.reversed()
    for workload in order {
        results[workload, default: []].append(try await measure(workload, calls: count(workload)))
    }
    report("courier-cache-bench: round \(round + 1) of \(rounds) done")
}

let finished = results
func cpu(_ workload: Workload) -> [Double] { finished[workload, default: []].map(\.cpu) }
func format(_ value: Double) -> String { String(format: "%.2f", value) }

print("Medians of \(rounds) interleaved rounds; \(calls) calls per round (\(networkCalls) over the network).")
print("A 1 KB envelope; the client on one core, courier-mock on the other. µs per call.")
print()
print("| workload | CPU µs/call | wall µs/call | CPU × memory hit |")
print("|---|---|---|---|")
let memoryCPU = cpu(.memoryHit)
for workload in workloads {
    let values = finished[workload, default: []]
    let ratios = zip(values.map(\.cpu), memoryCPU).map { $0 / $1 }
    print(
        "| \(workload.rawValue) | \(format(median(values.map(\.cpu)))) | \(format(median(values.map(\.wall)))) "
            + "| \(format(median(ratios))) |")
}
print()
let floorCPU = cpu(.floor)
let memoryWork = median(zip(memoryCPU, floorCPU).map { $0 - $1 })
let diskWork = median(zip(cpu(.diskHit), floorCPU).map { $0 - $1 })
let typedWork = median(zip(cpu(.memoryHitTyped), cpu(.floorTyped)).map { $0 - $1 })
print(
    "Cache work (a hit minus the floor, per round): memory \(format(memoryWork)) µs, disk \(format(diskWork)) µs; "
        + "typed memory hit \(format(typedWork)) µs.")
