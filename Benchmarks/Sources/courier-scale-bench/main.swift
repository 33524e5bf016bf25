// Scale benchmark for CurlTransport's event loops (epoll and poll):
//
// 1. Idle connections: CPU per request of 32 concurrent GETs with only their
//    own 32 connections open, then again with 10,000 more keep-alive
//    connections open and idle (to a second address of the same server).
//    The goal is a ratio ≤ 1.2 for the epoll loop.
// 2. Queued requests: 10,000 requests in flight on one default transport
//    (256 in libcurl, the rest queued): peak RSS growth per request, and the
//    most threads the process had.
//
// Usage: courier-scale-bench ACTIVE_BASE IDLE_BASE [rounds]
// Both bases are the same nginx: ACTIVE_BASE serves /small (764 B) at once,
// IDLE_BASE's /hold answers after a pause, so that every request of a burst
// holds a connection of its own. The process needs ~11,000 descriptors.

import BenchSupport
@_spi(Transport) import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Synchronization

let arguments = CommandLine.arguments
let idleConnections = Int(ProcessInfo.processInfo.environment["BENCH_IDLE"] ?? "") ?? 10_000
let queuedRequests = Int(ProcessInfo.processInfo.environment["BENCH_QUEUED"] ?? "") ?? 10_000
let activeRequests = 24_000
guard arguments.count >= 3 else {
    report("usage: courier-scale-bench ACTIVE_BASE IDLE_BASE [rounds]")
    exit(2)
}
let activeBase = arguments[1]
let idleBase = arguments[2]
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3

func request(_ url: String) -> OutgoingRequest {
    guard let parsed = URL(string: url) else {
        report("bad URL \(url)")
        exit(2)
    }
    return OutgoingRequest(head: HTTPRequest(method: .get, url: parsed))
}

/// `count` requests to `url` by `workers` concurrent workers; how many
/// opened a connection. Exits on any failure: a benchmark of failures
/// measures nothing.
@discardableResult
func burst(_ transport: CurlTransport, _ url: String, count: Int, workers: Int) async -> Int {
    let outgoing = request(url)
    do {
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var opened = 0
                    for _ in 0..<count / workers {
                        let response = try await transport.send(outgoing, options: .init())
                        guard response.statusCode == 200 else {
                            throw TransportError(.other, "status \(response.statusCode)")
                        }
                        if response.metrics.connectionReused == false { opened += 1 }
                    }
                    return opened
                }
            }
            return try await group.reduce(0, +)
        }
    } catch {
        report("\(url) failed: \(error)")
        exit(1)
    }
}

/// CPU µs per request of `activeRequests` requests by 32 workers.
func cpuPerActiveRequest(_ transport: CurlTransport) async -> Double {
    let cpu = cpuSeconds()
    await burst(transport, activeBase + "/small", count: activeRequests, workers: 32)
    return (cpuSeconds() - cpu) * 1e6 / Double(activeRequests)
}

/// The child's part: `queuedRequests` requests at once to `/pause` on one
/// default transport; writes "KiB-per-request threads" to `output`.
func queuedChild(idleBase: String, output: String) async {
    // The runtime's own threads first (pool, main queue), so that the
    // transport's share shows.
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<64 { group.addTask { for _ in 0..<100 { await Task.yield() } } }
    }
    let threadsBefore = Int(statusKiB("Threads"))
    do {
        try await withCurlTransport { transport in
            await burst(transport, idleBase + "/small", count: 64, workers: 32)  // warm-up
            let before = statusKiB("VmRSS")
            let peak = Most()
            let threads = Most()
            let done = Atomic<Bool>(false)
            // A plain thread samples (not a task: Task.sleep would start
            // libdispatch's timer thread, which the transport never needs);
            // it does not count itself.
            Thread {
                while !done.load(ordering: .relaxed) {
                    threads.most.max(Int(statusKiB("Threads")) - 1, ordering: .relaxed)
                    peak.most.max(Int(statusKiB("VmRSS")), ordering: .relaxed)
                    usleep(2000)
                }
            }.start()
            await burst(transport, idleBase + "/pause", count: queuedRequests, workers: queuedRequests)
            done.store(true, ordering: .relaxed)
            let growth = max(Double(peak.most.load(ordering: .relaxed)), statusKiB("VmHWM")) - before
            let most = threads.most.load(ordering: .relaxed)
            let line = "\(growth / Double(queuedRequests)) \(most) \(threadsBefore)\n"
            try Data(line.utf8).write(to: URL(fileURLWithPath: output))
        }
    } catch {
        report("queued: \(error)")
        exit(1)
    }
}

/// The floor under a queued request: what `queuedRequests` tasks of a task
/// group cost, each suspended on a continuation (as a caller waiting for
/// its response is), with no transport at all; same output as ``queuedChild``.
func taskFloorChild(output: String) async {
    let waiting = Parked()
    let before = statusKiB("VmRSS")
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<queuedRequests {
            group.addTask {
                await withCheckedContinuation { continuation in
                    waiting.list.withLock { $0.append(continuation) }
                }
            }
        }
        while waiting.list.withLock({ $0.count }) < queuedRequests { await Task.yield() }
        let growth = statusKiB("VmRSS") - before
        try? Data("\(growth / Double(queuedRequests)) 0 0\n".utf8).write(to: URL(fileURLWithPath: output))
        for continuation in waiting.list.withLock({ $0 }) { continuation.resume() }
    }
}

/// Runs ``queuedChild(idleBase:output:)`` (or, with `floor`,
/// ``taskFloorChild(output:)``) in a new process of this program.
func measureQueuedInChild(floor: Bool = false) -> (kib: Double, threads: Double, threadsBefore: Double) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("scale-\(getpid()).txt").path
    let argv = [CommandLine.arguments[0], floor ? "--floor-child" : "--queued-child", idleBase, output]
    var pointers = argv.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    var child: pid_t = 0
    guard posix_spawn(&child, argv[0], nil, nil, &pointers, environ) == 0 else {
        report("could not start the queued measurement")
        exit(1)
    }
    var status: Int32 = 0
    waitpid(child, &status, 0)
    let fields = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(
        whereSeparator: \.isWhitespace)
    try? FileManager.default.removeItem(atPath: output)
    guard status == 0, fields.count == 3, let kib = Double(fields[0]), let threads = Double(fields[1]),
        let threadsBefore = Double(fields[2])
    else {
        report("the queued measurement failed")
        exit(1)
    }
    return (kib, threads, threadsBefore)
}

/// Continuations of the floor's suspended tasks.
final class Parked: Sendable {
    let list = Mutex<[CheckedContinuation<Void, Never>]>([])
}

/// The most of something seen while the queued requests ran (threads, KiB).
final class Most: Sendable {
    let most = Atomic<Int>(0)
}

if arguments.count == 4, arguments[1] == "--queued-child" {
    await queuedChild(idleBase: arguments[2], output: arguments[3])
    exit(0)
}
if arguments.count == 4, arguments[1] == "--floor-child" {
    await taskFloorChild(output: arguments[3])
    exit(0)
}

/// BENCH_LOOPS=epoll (or poll) measures one loop only, for profiling.
let loops: [(name: String, loop: CurlTransport.Configuration.EventLoop)] = [
    ("epoll", .epoll), ("poll", .poll),
]
.filter { ProcessInfo.processInfo.environment["BENCH_LOOPS"].map($0.name.hasPrefix) ?? true }
var quiet: [String: [Double]] = [:]
var crowded: [String: [Double]] = [:]
var openedIdle: [String: [Double]] = [:]
var queuedKiB: [Double] = []
var queuedThreads: [Double] = []
var floorKiB: [Double] = []
var runtimeThreads: [Double] = []

for round in 1...rounds {
    for (name, loop) in loops {
        let limit = idleConnections + 100
        let configuration = CurlTransport.Configuration(
            maxConnectionsPerHost: limit, maxConnections: limit, maxActiveTransfers: limit, eventLoop: loop)
        do {
            try await withCurlTransport(configuration: configuration) { transport in
                await burst(transport, activeBase + "/small", count: 320, workers: 32)  // warm-up
                quiet[name, default: []].append(await cpuPerActiveRequest(transport))
                let opened = await burst(
                    transport, idleBase + "/hold", count: idleConnections, workers: idleConnections)
                openedIdle[name, default: []].append(Double(opened))
                crowded[name, default: []].append(await cpuPerActiveRequest(transport))
            }
        } catch {
            report("\(name): \(error)")
            exit(1)
        }
        report("round \(round): \(name) loop done")
    }
    // Queued: in a process of its own, so that the heap the other phases
    // grew and freed does not hide what the queue costs.
    let (kib, threads, threadsBefore) = measureQueuedInChild()
    queuedKiB.append(kib)
    queuedThreads.append(threads)
    runtimeThreads.append(threadsBefore)
    floorKiB.append(measureQueuedInChild(floor: true).kib)
    report("round \(round) of \(rounds) done")
}

let output = BenchReport()
output.say("Medians of \(rounds) rounds; the ratio is per round, then the median.")
output.say(
    "\n32 concurrent GETs 764 B, CPU µs per request, with \(idleConnections) idle connections open or not")
output.say("| event loop | 32 open | + idle open | × | idle connections opened |")
output.say("|---|---|---|---|---|")
var bars: [(name: String, value: Double)] = []
for (name, _) in loops {
    let ratios = zip(crowded[name] ?? [], quiet[name] ?? []).map { $0 / $1 }
    bars.append((name, median(ratios)))
    output.say(
        "| \(name) | \(String(format: "%.1f", median(quiet[name] ?? []))) | "
            + "\(String(format: "%.1f", median(crowded[name] ?? []))) | \(String(format: "%.2f", median(ratios))) | "
            + "\(String(format: "%.0f", median(openedIdle[name] ?? []))) |")
}
output.say("\n\(queuedRequests) requests in flight on one default transport (epoll loop)")
output.say(
    "| peak RSS growth per request | of which the caller's suspended task | most threads | "
        + "threads before the transport | cores |")
output.say("|---|---|---|---|---|")
output.say(
    "| \(String(format: "%.2f", median(queuedKiB))) KiB | \(String(format: "%.2f", median(floorKiB))) KiB | "
        + "\(String(format: "%.0f", median(queuedThreads))) | \(String(format: "%.0f", median(runtimeThreads))) | "
        + "\(ProcessInfo.processInfo.activeProcessorCount) |")
output.write(
    name: "scale",
    chart: BarChart(
        title: "CPU per active request with \(idleConnections) idle connections open",
        caption: "× the same with only the 32 active connections open; median of \(rounds) rounds",
        groups: [BarChart.Group(label: "32 concurrent GETs 764 B", bars: bars)]))
