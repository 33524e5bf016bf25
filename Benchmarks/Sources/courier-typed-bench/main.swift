// The full typed call: GET a ~750 B envelope {code, msg, data: user} and
// decode the user, through every stack, side by side in one run, rounds
// interleaved. CPU µs per call (the whole process, from getrusage) and calls
// per second; medians, and ratios to the hand-written libcurl + jansson floor.
//
// Usage: courier-typed-bench BASE_URL [rounds]   (BASE_URL serves /user.json)

import AsyncHTTPClient
import BenchSupport
import CRawCurl
import CourierCodable
import CourierCore
import CourierCurl
import CourierJansson
import Foundation
import NIOCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Exactly the fields the hand-written C floor fills, so every contender does
/// the same work (courier-json-bench decodes a fuller model on purpose).
struct User: Decodable, Sendable {
    let id: Int
    let name: String
    let email: String
    let plan: String
    let verified: Bool
    let balance: Double
}

struct Envelope: Decodable, Sendable {
    let code: Int
    let msg: String
    let data: User?
}

enum Contender: String, CaseIterable {
    case floor = "libcurl + jansson by hand (floor)"
    case courierJansson = "Courier, CourierCurl + JanssonDecoder"
    case courierJanssonExecutor = "Courier, CourierCurl + JanssonDecoder, executor mode"
    case courierCodable = "Courier, CourierCurl + Codable"
    case ahc = "AsyncHTTPClient + JSONDecoder"
    case urlSession = "URLSession + JSONDecoder"
    case raw = "raw C libcurl, no decoding"
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let baseURL = URL(string: arguments[1]) else {
    report("usage: courier-typed-bench BASE_URL [rounds]")
    exit(2)
}
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
let url = baseURL.appendingPathComponent("user.json").absoluteString
let node = Node("bench", baseURL: baseURL.absoluteString, envelope: .standard)
let endpoint = Endpoint<User>(.get("user.json"), on: node)
let janssonClient = APIClient(transport: CurlTransport.shared, decoder: .jansson)
let codableClient = APIClient(transport: CurlTransport.shared, decoder: .codable)
let ahc = HTTPClient(eventLoopGroupProvider: .singleton)
let session = URLSession(configuration: .ephemeral)

/// One call by `contender`; true when it produced the user.
func call(_ contender: Contender) async throws -> Bool {
    switch contender {
    case .courierJansson, .courierJanssonExecutor: return try await janssonClient.send(endpoint).id == 7
    case .courierCodable: return try await codableClient.send(endpoint).id == 7
    case .ahc:
        let response = try await ahc.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        var body = try await response.body.collect(upTo: 1 << 20)
        let bytes = body.readBytes(length: body.readableBytes) ?? []
        return try JSONDecoder().decode(Envelope.self, from: Data(bytes)).data?.id == 7
    case .urlSession:
        guard let address = URL(string: url) else { return false }
        let (data, _) = try await session.data(from: address)
        return try JSONDecoder().decode(Envelope.self, from: data).data?.id == 7
    case .floor, .raw: return false
    }
}

/// `count` calls with `concurrency` workers; returns how many produced the user.
func run(_ contender: Contender, count: Int, concurrency: Int) async throws -> Int {
    switch contender {
    case .floor:
        return await onThread {
            concurrency == 1
                ? courier_raw_typed_sequential(url, count)
                : courier_raw_typed_concurrent(url, count, concurrency)
        }
    case .raw:
        return await onThread {
            concurrency == 1
                ? courier_raw_sequential(url, count) : courier_raw_concurrent(url, count, concurrency)
        }
    default:
        let executor = contender == .courierJanssonExecutor ? CurlTransport.shared.taskExecutor : nil
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask(executorPreference: executor) {
                    var ok = 0
                    for _ in 0..<(count / concurrency) where try await call(contender) { ok += 1 }
                    return ok
                }
            }
            return try await group.reduce(0, +)
        }
    }
}

let workloads = [("sequential, one connection", 3000, 1), ("32 concurrent", 12000, 32)].filter { workload in
    ProcessInfo.processInfo.environment["BENCH_WORKLOADS"].map { workload.0.hasPrefix($0) } ?? true
}
/// BENCH_CONTENDERS (name prefixes separated by ";") narrows the run, for profiling.
let contenders = Contender.allCases.filter { contender in
    guard let filter = ProcessInfo.processInfo.environment["BENCH_CONTENDERS"] else { return true }
    return filter.split(separator: ";").contains { contender.rawValue.hasPrefix($0) }
}
var cpu: [String: [Contender: [Double]]] = [:]
var rate: [String: [Contender: [Double]]] = [:]
for round in 1...rounds {
    for (name, count, concurrency) in workloads {
        for contender in contenders {
            let start = ContinuousClock.now
            let before = cpuSeconds()
            let ok = try await run(contender, count: count, concurrency: concurrency)
            let used = cpuSeconds() - before
            let wall = seconds(ContinuousClock.now - start)
            guard ok == count else {
                report("\(contender.rawValue) failed \(name): \(ok) of \(count)")
                exit(1)
            }
            cpu[name, default: [:]][contender, default: []].append(used * 1e6 / Double(count))
            rate[name, default: [:]][contender, default: []].append(Double(count) / wall)
        }
    }
    report("round \(round) of \(rounds) done")
}
await ahc.shutdown()

let output = BenchReport()
output.say(
    "Medians of \(rounds) interleaved rounds; ratios are per-round CPU ratios to the hand-written floor, then the median."
)
var chartGroups: [BarChart.Group] = []
for (name, _, _) in workloads {
    output.say("\nthe typed call, \(name)")
    output.say("| contender | calls/s | CPU µs/call | × floor |")
    output.say("|---|---|---|---|")
    let floor = cpu[name]?[.floor] ?? []
    var bars: [(name: String, value: Double)] = []
    for contender in contenders {
        let mine = cpu[name]?[contender] ?? []
        let ratio = median(zip(mine, floor).map { $0 / $1 })
        bars.append((contender.rawValue, ratio))
        output.say(
            "| \(contender.rawValue) | \(String(format: "%.0f", median(rate[name]?[contender] ?? []))) | "
                + "\(String(format: "%.1f", median(mine))) | \(String(format: "%.2f", ratio)) |"
        )
    }
    chartGroups.append(BarChart.Group(label: "the typed call, \(name)", bars: bars))
}
output.write(
    name: "typed-call",
    chart: BarChart(
        title: "The typed call: GET, envelope, model",
        caption: "CPU per call, × the hand-written libcurl + jansson floor; median of \(rounds) rounds",
        groups: chartGroups, cap: 6))
