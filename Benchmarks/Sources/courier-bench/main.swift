// Transport benchmark: raw C libcurl, CourierCurl, CourierURLSession and
// AsyncHTTPClient side by side in one run, rounds interleaved, medians and
// ratios to raw libcurl. CPU µs per request comes from getrusage (the whole
// process: client threads, not the server, which runs in nginx).
//
// Usage: courier-bench BASE_URL [rounds]
// BASE_URL serves /small (764 B), /large (100 KB) and /download (64 MiB).
// BENCH_CONTENDERS and BENCH_WORKLOADS (name prefixes separated by ";")
// narrow a run, for profiling one path.

import AsyncHTTPClient
import BenchSupport
import CRawCurl
import CourierAsyncHTTPClient
@_spi(Transport) import CourierCore
import CourierCurl
import CourierURLSession
import Foundation
import HTTPTypes
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: courier-bench BASE_URL [rounds]\n".utf8))
    exit(2)
}
let base = arguments[1]
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5

struct Workload {
    let name: String
    let path: String
    let requests: Int
    let concurrency: Int
    let download: Bool
}

let workloads = [
    Workload(name: "sequential GET 764 B", path: "/small", requests: 3000, concurrency: 1, download: false),
    Workload(
        name: "32 concurrent GETs 764 B", path: "/small", requests: 12000, concurrency: 32, download: false),
    Workload(
        name: "32 concurrent GETs 100 KB", path: "/large", requests: 3000, concurrency: 32, download: false),
    Workload(
        name: "64 MiB download to a file", path: "/download", requests: 1, concurrency: 1, download: true),
]

enum Contender: String, CaseIterable {
    case raw = "raw C libcurl"
    case curl = "CourierCurl"
    /// Callers run on the transport's thread (`withTaskExecutorPreference`).
    case curlExecutor = "CourierCurl, executor mode"
    case urlSession = "CourierURLSession"
    /// Courier's transport over async-http-client, beside AHC used directly.
    case courierAHC = "CourierAsyncHTTPClient"
    case ahc = "AsyncHTTPClient"
}

func selected<T>(_ all: [T], _ variable: String, _ name: (T) -> String) -> [T] {
    guard let filter = ProcessInfo.processInfo.environment[variable] else { return all }
    let prefixes = filter.split(separator: ";").map { $0.lowercased() }
    return all.filter { item in prefixes.contains { name(item).lowercased().hasPrefix($0) } }
}
let contenders = selected(Contender.allCases, "BENCH_CONTENDERS", \.rawValue)
let chosenWorkloads = selected(workloads, "BENCH_WORKLOADS", \.name)

/// BENCH_EVENT_LOOP=poll measures CurlTransport's poll loop instead of the default.
let curl =
    ProcessInfo.processInfo.environment["BENCH_EVENT_LOOP"] == "poll"
    ? try CurlTransport(configuration: .init(eventLoop: .poll)) : CurlTransport.shared
let session = URLSessionTransport.shared
let courierAHC = AsyncHTTPClientTransport.shared
let ahc = HTTPClient(eventLoopGroupProvider: .singleton)
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)

func courierRequest(_ path: String) -> OutgoingRequest {
    guard let url = URL(string: base + path) else {
        FileHandle.standardError.write(Data("bad URL \(base + path)\n".utf8))
        exit(2)
    }
    return OutgoingRequest(head: HTTPRequest(method: .get, url: url))
}

/// The Courier transport a contender runs over.
func transport(_ contender: Contender) -> any Transport {
    switch contender {
    case .urlSession: session
    case .courierAHC: courierAHC
    default: curl
    }
}

/// Sends `count` requests with `concurrency` workers; returns how many succeeded.
func run(_ contender: Contender, _ workload: Workload) async throws -> Int {
    let url = base + workload.path
    if workload.download {
        let file = scratch.appendingPathComponent("\(contender).bin")
        try? FileManager.default.removeItem(at: file)
        switch contender {
        case .raw:
            let path = file.path
            return await onThread { courier_raw_download(url, path) } > 0 ? 1 : 0
        case .curl, .curlExecutor, .urlSession, .courierAHC:
            let transport = transport(contender)
            let response = try await transport.send(
                courierRequest(workload.path), options: .init(destination: DownloadTarget(file)))
            return response.statusCode == 200 ? 1 : 0
        case .ahc:
            let delegate = try FileDownloadDelegate(path: file.path)
            let response = try await ahc.execute(request: HTTPClient.Request(url: url), delegate: delegate)
                .get()
            return response.totalBytes ?? 0 > 0 ? 1 : 0
        }
    }
    if contender == .raw {
        let count = workload.requests
        let inflight = workload.concurrency
        return await onThread {
            inflight == 1 ? courier_raw_sequential(url, count) : courier_raw_concurrent(url, count, inflight)
        }
    }
    let perWorker = workload.requests / workload.concurrency
    // Built once, as the raw contender sets its URL once.
    let request = courierRequest(workload.path)
    return try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<workload.concurrency {
            group.addTask(executorPreference: contender == .curlExecutor ? curl.taskExecutor : nil) {
                var ok = 0
                for _ in 0..<perWorker {
                    switch contender {
                    case .curl, .curlExecutor, .urlSession, .courierAHC:
                        if try await transport(contender).send(request, options: .init())
                            .statusCode == 200
                        {
                            ok += 1
                        }
                    case .ahc:
                        let response = try await ahc.execute(
                            HTTPClientRequest(url: url), timeout: .seconds(30))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        if response.status == .ok { ok += 1 }
                    case .raw:
                        break
                    }
                }
                return ok
            }
        }
        return try await group.reduce(0, +)
    }
}

struct Sample {
    var requestsPerSecond: Double
    var cpuMicrosPerRequest: Double
    /// How far the resident set rose above its level at the start.
    var peakGrowthMiB: Double = 0
}

var samples: [String: [Contender: [Sample]]] = [:]
for round in 1...rounds {
    for workload in chosenWorkloads {
        for contender in contenders {
            resetPeakResidentSet()
            let residentBefore = statusKiB("VmRSS")
            let start = ContinuousClock.now
            let cpu = cpuSeconds()
            let ok = try await run(contender, workload)
            let peakGrowth = (statusKiB("VmHWM") - residentBefore) / 1024
            let elapsed = ContinuousClock.now - start
            let cpuUsed = cpuSeconds() - cpu
            let (seconds, attoseconds) = elapsed.components
            let wall = Double(seconds) + Double(attoseconds) / 1e18
            let units = workload.download ? 64.0 : Double(workload.requests)  // MiB for downloads
            guard
                ok
                    == (workload.download
                        ? 1 : workload.requests / max(1, workload.concurrency) * workload.concurrency)
                    || (contender == .raw && ok == workload.requests)
            else {
                FileHandle.standardError.write(
                    Data("\(contender.rawValue) failed \(workload.name): \(ok) ok\n".utf8))
                exit(1)
            }
            samples[workload.name, default: [:]][contender, default: []].append(
                Sample(
                    requestsPerSecond: units / wall, cpuMicrosPerRequest: cpuUsed * 1e6 / units,
                    peakGrowthMiB: peakGrowth))
        }
    }
    FileHandle.standardError.write(Data("round \(round) of \(rounds) done\n".utf8))
}
await ahc.shutdown()

let output = BenchReport()
output.say(
    "Medians of \(rounds) interleaved rounds; ratios are per-round ratios to raw C libcurl, then the median.")
var chartGroups: [BarChart.Group] = []
for workload in chosenWorkloads {
    let unit = workload.download ? "MiB/s" : "req/s"
    let cpuUnit = workload.download ? "CPU µs/MiB" : "CPU µs/req"
    output.say("\n\(workload.name)")
    output.say("| contender | \(unit) | × raw | \(cpuUnit) | × raw | peak RSS growth MiB |")
    output.say("|---|---|---|---|---|---|")
    let raw = samples[workload.name]?[.raw] ?? []
    var bars: [(name: String, value: Double)] = []
    for contender in contenders {
        let mine = samples[workload.name]?[contender] ?? []
        let speedRatio = median(zip(mine, raw).map { $0.requestsPerSecond / $1.requestsPerSecond })
        let cpuRatio = median(zip(mine, raw).map { $0.cpuMicrosPerRequest / $1.cpuMicrosPerRequest })
        bars.append((contender.rawValue, cpuRatio))
        let growth = " \(String(format: "%.1f", median(mine.map(\.peakGrowthMiB)))) |"
        output.say(
            "| \(contender.rawValue) | \(String(format: "%.0f", median(mine.map(\.requestsPerSecond)))) | "
                + "\(String(format: "%.2f", speedRatio)) | \(String(format: "%.1f", median(mine.map(\.cpuMicrosPerRequest)))) | "
                + "\(String(format: "%.2f", cpuRatio)) |\(growth)")
    }
    chartGroups.append(BarChart.Group(label: workload.name, bars: bars))
}
output.write(
    name: "transports",
    chart: BarChart(
        title: "Transports against nginx on loopback",
        caption: "CPU per request (per MiB for the download), × raw C libcurl; median of \(rounds) rounds",
        groups: chartGroups, cap: 6))
try? FileManager.default.removeItem(at: scratch)
