// The call pipeline's own cost: APIClient over StubTransport (no sockets), so
// what is measured is mapping, encoding, the interceptor chains, plugins,
// validation, the envelope and the result, per call. CPU µs per call (the
// whole process, from getrusage) and wall µs per call; medians over rounds.
//
// Usage: courier-pipeline-bench [rounds=7] [--raw] [--calls N] [--only TEXT]
//   --only runs the workloads whose name contains TEXT (for profiling)
//   --raw prints one tab-separated line per workload and round
//   (workload, cpu µs/call, wall µs/call) for scripts/bench-pipeline, which
//   runs two builds (before and after a change) with rounds interleaved.
//
// Uses only API that every version of the pipeline has, so the same source
// builds against an earlier commit.

import BenchSupport
import CourierCodable
@_spi(Transport) @_spi(Decoding) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes

struct User: Decodable, Sendable {
    let id: Int
    let name: String
}

/// Adds one header: the cheapest real per-call interceptor.
let interceptor = ClosureInterceptor { request, _, next in
    var request = request
    request.head.headerFields[.accept] = "application/json"
    return try await next(request)
}

/// Observes every hook without doing work: the cost of the hooks themselves.
struct NoOpPlugin: Plugin {
    func willSend(_ request: HTTPRequest, context: CallContext) async {}
}

let envelopeBody = Array(#"{"code":0,"msg":"ok","data":{"id":7,"name":"Ada"}}"#.utf8)
let plainNode = Node("bench", baseURL: "https://api.example.com/v1")
let envelopeNode = Node("bench", baseURL: "https://api.example.com/v1", envelope: .standard)
let stub = StubTransport.immediate(.json(#"{"id":7,"name":"Ada"}"#))
let envelopeStub = StubTransport.immediate(.json(String(decoding: envelopeBody, as: UTF8.self)))
let bare = APIClient(transport: stub)
let decorated = APIClient(transport: stub, callInterceptors: [interceptor], plugins: [NoOpPlugin()])
let typed = APIClient(transport: envelopeStub, decoder: .codable)
let raw = Endpoint<RawResponse>(.get("users/7"), on: plainNode)
let typedEndpoint = Endpoint<User>(.get("users/7"), on: envelopeNode)
let stubRequest = OutgoingRequest(
    head: HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/users/7"))
let decoder: any ResponseDecoder = .codable

enum Workload: String, CaseIterable {
    case stubAlone = "StubTransport alone"
    case bareSequential = "APIClient, raw response, sequential"
    case bareConcurrent = "APIClient, raw response, 32 tasks"
    case decoratedSequential = "+ 1 interceptor + 1 plugin, sequential"
    case decoratedConcurrent = "+ 1 interceptor + 1 plugin, 32 tasks"
    case decoderAlone = "envelope read + decode alone (Codable)"
    case typedSequential = "APIClient, envelope → model (Codable), sequential"
}

struct BenchFailure: Error {}

/// One call of the workload; throws if it did not produce what it should.
@inline(never)
func once(_ workload: Workload) async throws {
    switch workload {
    case .stubAlone:
        guard try await stub.send(stubRequest, options: TransportOptions()).statusCode == 200 else {
            throw BenchFailure()
        }
    case .bareSequential, .bareConcurrent:
        guard try await bare.send(raw).statusCode == 200 else { throw BenchFailure() }
    case .decoratedSequential, .decoratedConcurrent:
        guard try await decorated.send(raw).statusCode == 200 else { throw BenchFailure() }
    case .decoderAlone:
        let head = try decoder.readEnvelope(envelopeBody, format: .standard)
        guard try decoder.decode(User.self, from: envelopeBody, at: ["data"], envelope: head).id == 7 else {
            throw BenchFailure()
        }
    case .typedSequential:
        guard try await typed.send(typedEndpoint).id == 7 else { throw BenchFailure() }
    }
}

/// Runs `calls` calls, sequentially or from 32 tasks; returns (cpu, wall) µs per call.
func measure(_ workload: Workload, calls: Int) async throws -> (cpu: Double, wall: Double) {
    let concurrent = workload == .bareConcurrent || workload == .decoratedConcurrent
    let cpuStart = cpuSeconds()
    let wallStart = ContinuousClock.now
    if concurrent {
        let tasks = 32
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask { for _ in 0..<(calls / tasks) { try await once(workload) } }
            }
            try await group.waitForAll()
        }
    } else {
        for _ in 0..<calls { try await once(workload) }
    }
    let wall = seconds(ContinuousClock.now - wallStart)
    let cpu = cpuSeconds() - cpuStart
    return (cpu / Double(calls) * 1e6, wall / Double(calls) * 1e6)
}

var rounds = 7
var rawOutput = false
var calls = 50_000
var only: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--raw": rawOutput = true
    case "--calls": calls = arguments.next().flatMap(Int.init) ?? calls
    case "--only": only = arguments.next()
    default: rounds = Int(argument) ?? rounds
    }
}

let workloads = Workload.allCases.filter { only == nil || $0.rawValue.contains(only ?? "") }

// Warm up: every code path once, caches and lazy state filled.
for workload in workloads { _ = try await measure(workload, calls: 2_000) }

var results: [Workload: [(cpu: Double, wall: Double)]] = [:]
for _ in 0..<rounds {
    for workload in workloads {
        let result = try await measure(workload, calls: calls)
        results[workload, default: []].append(result)
        if rawOutput {
            print("\(workload.rawValue)\t\(result.cpu)\t\(result.wall)")
        }
    }
}
if !rawOutput {
    print("Medians of \(rounds) rounds, \(calls) calls each; µs per call")
    print()
    print("| workload | CPU µs/call | wall µs/call |")
    print("|---|---|---|")
    for workload in workloads {
        let values = results[workload] ?? []
        let cpu = median(values.map(\.cpu))
        let wall = median(values.map(\.wall))
        print("| \(workload.rawValue) | \(String(format: "%.2f", cpu)) | \(String(format: "%.2f", wall)) |")
    }
}
