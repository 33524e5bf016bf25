// Streaming benchmark: a 1,000,000-event server-sent event stream and a
// 100 MB NDJSON export decoded to models, served by nginx from files on
// loopback. CourierCurl through APIClient (client.events; client.stream
// with .decoded, Codable and jansson) next to async-http-client used
// directly and URLSession with a data delegate, both splitting lines by
// hand (FoundationNetworking has no `bytes(for:)`). Events per second from
// the wall clock, CPU µs per event from getrusage (the client process
// only); rounds interleaved, medians. Then the memory a sleeping reader
// costs: a 1 GiB body, the reader asleep after its first chunk, RSS
// sampled while it sleeps and while it reads the rest, per transport.
//
// Usage: courier-stream-bench BASE_URL [rounds]   (BASE_URL serves
// events.sse, rows.ndjson and big.bin)

import AsyncHTTPClient
import BenchSupport
import CourierAsyncHTTPClient
import CourierCodable
import CourierCore
import CourierCurl
import CourierJansson
import CourierStreamFormats
import CourierURLSession
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2, let base = URL(string: arguments[1]) else {
    report("usage: courier-stream-bench BASE_URL [rounds]")
    exit(2)
}
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let node = Node("bench", baseURL: arguments[1])
let expectedEvents = 1_000_000
/// BENCH_PARTS: `throughput`, `memory` or both (the default).
let parts = ProcessInfo.processInfo.environment["BENCH_PARTS"] ?? "throughput,memory"

enum Contender: String, CaseIterable {
    case courierEvents = "CourierCurl, client.events"
    case courierCodable = "CourierCurl, client.stream + .decoded (Codable)"
    case courierJansson = "CourierCurl, client.stream + .decoded (jansson)"
    case ahc = "AsyncHTTPClient directly, lines split by hand"
    case urlSession = "URLSession data delegate, lines split by hand"
}

enum Workload: String, CaseIterable {
    case events = "1,000,000 server-sent events"
    case rows = "100 MB NDJSON decoded to models"

    var path: String { self == .events ? "events.sse" : "rows.ndjson" }
    var contenders: [Contender] {
        self == .events
            ? [.courierEvents, .ahc, .urlSession] : [.courierCodable, .courierJansson, .ahc, .urlSession]
    }
}

let curl = APIClient(transport: CurlTransport.shared, decoder: .codable)
let ahc = HTTPClient(eventLoopGroupProvider: .singleton)

func run(_ contender: Contender, _ workload: Workload) async throws -> Tally {
    let endpoint = Endpoint<RawResponse>(.get(RoutePath(escaped: workload.path)), on: node)
    var tally = Tally()
    switch contender {
    case .courierEvents:
        for try await event in curl.events(endpoint) {
            tally.items += 1
            tally.checksum &+= event.data.utf8.count
        }
    case .courierCodable, .courierJansson:
        let decoder: any ResponseDecoder = contender == .courierJansson ? JanssonDecoder() : CodableDecoder()
        let rows = try await curl.stream(endpoint).body.decoded(Row.self, using: decoder)
        for try await row in rows {
            tally.items += 1
            tally.checksum &+= row.id
        }
    case .ahc:
        tally = try await viaAsyncHTTPClient(
            ahc, base.appendingPathComponent(workload.path).absoluteString,
            workload == .events ? .events : .rows)
    case .urlSession:
        tally = try await viaURLSession(
            base.appendingPathComponent(workload.path), workload == .events ? .events : .rows)
    }
    return tally
}

let output = BenchReport()
let memoryRows: [(String, any Transport)] =
    parts.contains("memory")
    ? [
        ("CurlTransport", CurlTransport.shared),
        ("AsyncHTTPClientTransport", AsyncHTTPClientTransport.shared),
        ("URLSessionTransport", URLSessionTransport.shared),
    ] : []
output.say("A reader asleep on a 1 GiB body (big.bin), measured first, in a fresh process: RSS in MiB")
output.say(
    "| transport | before | while the reader sleeps (max) | while it reads the rest (max) | buffered ahead (max) | outcome |"
)
output.say("|---|---|---|---|---|---|")
for (name, transport) in memoryRows {
    let client = APIClient(transport: transport)
    let before = statusKiB("VmRSS") / 1024
    var asleep = 0.0
    var reading = 0.0
    var total = 0
    var outcome = "read to the end"
    var peak = 0
    do {
        let reply = try await client.stream(Endpoint<RawResponse>(.get("big.bin"), on: node))
        var chunks = reply.body.makeAsyncIterator()
        total += try await chunks.next()?.count ?? 0
        // The reader sleeps for 5 s; the network does not wait.
        for _ in 0..<50 {
            try await Task.sleep(for: .milliseconds(100))
            asleep = max(asleep, statusKiB("VmRSS") / 1024)
        }
        var sampled = 0
        while let chunk = try await chunks.next() {
            total += chunk.count
            if total - sampled > 32 << 20 {
                sampled = total
                reading = max(reading, statusKiB("VmRSS") / 1024)
            }
        }
        peak = reply.body.peakBufferedBytes
        if total != 1 << 30 { outcome = "\(total) bytes" }
    } catch let error as CourierError {
        outcome = "\(error.code.rawValue) after \(total >> 20) MiB: \(error.message)"
    } catch {
        outcome = "\(error)"
    }
    output.say(
        "| \(name) | \(String(format: "%.0f", before)) | \(String(format: "%.0f", asleep)) | "
            + "\(reading > 0 ? String(format: "%.0f", reading) : "—") | \(String(format: "%.2f", Double(peak) / 1_048_576)) MiB | \(outcome) |"
    )
}

struct Sample {
    var itemsPerSecond: Double
    var cpuMicrosPerItem: Double
}

var samples: [Workload: [Contender: [Sample]]] = [:]
var counts: [Workload: Int] = [:]
for round in 1...rounds where parts.contains("throughput") {
    for workload in Workload.allCases {
        for contender in workload.contenders {
            let start = ContinuousClock.now
            let cpu = cpuSeconds()
            let tally: Tally
            do {
                tally = try await run(contender, workload)
            } catch {
                report("\(contender.rawValue), \(workload.rawValue) failed: \(error)")
                exit(1)
            }
            let cpuUsed = cpuSeconds() - cpu
            let wall = seconds(ContinuousClock.now - start)
            if let seen = counts[workload], seen != tally.items {
                report("\(contender.rawValue): \(tally.items) items, others saw \(seen)")
                exit(1)
            }
            counts[workload] = tally.items
            samples[workload, default: [:]][contender, default: []].append(
                Sample(
                    itemsPerSecond: Double(tally.items) / wall,
                    cpuMicrosPerItem: cpuUsed * 1e6 / Double(max(1, tally.items))))
        }
    }
    report("round \(round) of \(rounds) done")
}
guard !parts.contains("throughput") || counts[.events] == expectedEvents else {
    report("the event stream had \(counts[.events] ?? 0) events, not \(expectedEvents)")
    exit(1)
}

output.say("\nMedians of \(rounds) interleaved rounds, one stream at a time, nginx on loopback.")
var groups: [BarChart.Group] = []
for workload in Workload.allCases where parts.contains("throughput") {
    let contenders = workload.contenders
    let reference = samples[workload]?[contenders[0]] ?? []
    output.say("\n\(workload.rawValue) (\(counts[workload] ?? 0) items)")
    output.say("| contender | items/s | CPU µs/item | CPU × \(contenders[0].rawValue) |")
    output.say("|---|---|---|---|")
    var bars: [(name: String, value: Double)] = []
    for contender in contenders {
        let mine = samples[workload]?[contender] ?? []
        let ratio = median(zip(mine, reference).map { $0.cpuMicrosPerItem / $1.cpuMicrosPerItem })
        bars.append((contender.rawValue, ratio))
        output.say(
            "| \(contender.rawValue) | \(String(format: "%.0f", median(mine.map(\.itemsPerSecond)))) | "
                + "\(String(format: "%.2f", median(mine.map(\.cpuMicrosPerItem)))) | "
                + "\(String(format: "%.2f", ratio)) |")
    }
    groups.append(BarChart.Group(label: workload.rawValue, bars: bars))
}

try await ahc.shutdown().get()
output.write(
    name: "streaming",
    chart: BarChart(
        title: "Streaming: CPU per event and per row",
        caption: "CPU per item, × CourierCurl through APIClient; median of \(rounds) rounds",
        groups: groups))
