// HTTP/2 benchmark: 100 concurrent requests multiplexed on one connection.
// CourierCurl over cleartext with prior knowledge (h2c), CourierCurl and
// AsyncHTTPClient over TLS (AsyncHTTPClient speaks HTTP/2 only over TLS,
// negotiated by ALPN); rounds interleaved, medians. CPU µs per request from
// getrusage (the client process only); connections opened from nginx's
// access log, which records each request's connection number. The h2c row
// needs a libcurl other than 7.88.x (see CurlFeatures).
//
// Usage: courier-h2-bench H2C_BASE TLS_BASE CA_FILE ACCESS_LOG [rounds]

import AsyncHTTPClient
import BenchSupport
@_spi(Transport) import CourierCore
import CourierCurl
import CourierTLS
import Foundation
import HTTPTypes
import NIOCore
import NIOSSL

let arguments = CommandLine.arguments
guard arguments.count >= 5 else {
    report("usage: courier-h2-bench H2C_BASE TLS_BASE CA_FILE ACCESS_LOG [rounds]")
    exit(2)
}
let (h2cBase, tlsBase, caFile, accessLog) = (arguments[1], arguments[2], arguments[3], arguments[4])
let rounds = arguments.count > 5 ? Int(arguments[5]) ?? 3 : 3
let concurrency = 100
let requests = 20_000

enum Contender: String, CaseIterable {
    case curlH2C = "CourierCurl, h2c (prior knowledge)"
    case curlTLS = "CourierCurl, h2 over TLS"
    case ahcTLS = "AsyncHTTPClient, h2 over TLS"
}

/// The access log's lines so far.
func loggedConnections() -> [Substring] {
    ((try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? "").split(separator: "\n")
}

func outgoing(_ url: String) -> OutgoingRequest {
    guard let parsed = URL(string: url) else {
        report("bad URL \(url)")
        exit(2)
    }
    return OutgoingRequest(head: HTTPRequest(method: .get, url: parsed))
}

/// `requests` GETs of /small by `concurrency` workers; the count answered 200
/// over HTTP/2 (CourierCurl reports the version; AsyncHTTPClient's response does too).
func run(_ contender: Contender, curlH2C: CurlTransport, curlTLS: CurlTransport, ahc: HTTPClient) async throws
    -> Int
{
    try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var ok = 0
                for _ in 0..<requests / concurrency {
                    switch contender {
                    case .curlH2C, .curlTLS:
                        let transport = contender == .curlH2C ? curlH2C : curlTLS
                        let base = contender == .curlH2C ? h2cBase : tlsBase
                        let response = try await transport.send(outgoing(base + "/small"), options: .init())
                        if response.statusCode == 200, response.metrics.httpVersion == "2" { ok += 1 }
                    case .ahcTLS:
                        let response = try await ahc.execute(
                            HTTPClientRequest(url: tlsBase + "/small"), timeout: .seconds(30))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        if response.status == .ok, response.version == .http2 { ok += 1 }
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
    var connections: Int
}

var samples: [Contender: [Sample]] = [:]
let trust = TLSSettings(caBundlePath: caFile)
/// BENCH_CONTENDERS (name prefixes separated by ";") narrows the run. h2c
/// is left out with a libcurl that gives each prior-knowledge request a
/// connection of its own (CurlFeatures): nothing would be multiplexed.
let h2cMultiplexes = CurlFeatures.current.http2PriorKnowledgeReusesConnections
let contenders = Contender.allCases.filter { contender in
    if contender == .curlH2C, !h2cMultiplexes { return false }
    guard let filter = ProcessInfo.processInfo.environment["BENCH_CONTENDERS"] else { return true }
    return filter.split(separator: ";").contains {
        contender.rawValue.lowercased().hasPrefix($0.lowercased())
    }
}
for round in 1...rounds {
    for contender in contenders {
        // Fresh clients each round: connections opened are counted from zero.
        let curlH2C = try CurlTransport(configuration: .init(httpVersion: .http2PriorKnowledge))
        let curlTLS = try CurlTransport(configuration: .init(tls: trust))
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(caFile)
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        let ahc = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let logged = loggedConnections().count
        let start = ContinuousClock.now
        let cpu = cpuSeconds()
        let ok: Int
        do {
            ok = try await run(contender, curlH2C: curlH2C, curlTLS: curlTLS, ahc: ahc)
        } catch {
            report("\(contender.rawValue) failed: \(error)")
            exit(1)
        }
        let cpuUsed = cpuSeconds() - cpu
        let wall = seconds(ContinuousClock.now - start)
        await curlH2C.shutdown()
        await curlTLS.shutdown()
        try await ahc.shutdown()
        guard ok == requests else {
            report("\(contender.rawValue): \(ok) of \(requests) answered 200 over HTTP/2")
            exit(1)
        }
        let connections = Set(loggedConnections().dropFirst(logged)).count
        samples[contender, default: []].append(
            Sample(
                requestsPerSecond: Double(requests) / wall,
                cpuMicrosPerRequest: cpuUsed * 1e6 / Double(requests),
                connections: connections))
    }
    report("round \(round) of \(rounds) done")
}

let output = BenchReport()
output.say("Medians of \(rounds) interleaved rounds; \(requests) GETs of 764 B, \(concurrency) at once.")
output.say("\n\(concurrency) concurrent GETs 764 B over HTTP/2")
if !h2cMultiplexes {
    output.say(
        "(h2c not measured: libcurl \(CurlFeatures.current.version) breaks requests on an existing "
            + "prior-knowledge connection, so CurlTransport opens one per request there.)")
}
output.say("| contender | req/s | CPU µs/req | × CourierCurl over TLS | connections opened |")
output.say("|---|---|---|---|---|")
let reference = samples[.curlTLS] ?? []
var bars: [(name: String, value: Double)] = []
for contender in contenders {
    let mine = samples[contender] ?? []
    let ratio = median(zip(mine, reference).map { $0.cpuMicrosPerRequest / $1.cpuMicrosPerRequest })
    bars.append((contender.rawValue, ratio))
    output.say(
        "| \(contender.rawValue) | \(String(format: "%.0f", median(mine.map(\.requestsPerSecond)))) | "
            + "\(String(format: "%.1f", median(mine.map(\.cpuMicrosPerRequest)))) | \(String(format: "%.2f", ratio)) | "
            + "\(String(format: "%.0f", median(mine.map { Double($0.connections) }))) |")
}
output.write(
    name: "http2",
    chart: BarChart(
        title: "HTTP/2: 100 concurrent GETs on one connection",
        caption: "CPU per request, × CourierCurl over TLS; median of \(rounds) rounds",
        groups: [BarChart.Group(label: "100 concurrent GETs 764 B", bars: bars)]))
