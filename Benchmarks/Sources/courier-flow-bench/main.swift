// What flow control adds to a call: the same calls through APIClient over
// StubTransport (no sockets), 1,000 at once, with and without a
// ConcurrencyGroup (policy .default: nothing ever waits) and an
// Authenticator whose credential is valid (no refresh due). Rounds are
// interleaved; the added cost is taken per round (with − without), then the
// median. CPU µs per call from getrusage, the whole process.
//
// Usage: courier-flow-bench [rounds=7] [--calls-per-task N] [--only TEXT]
//   --only runs the workloads whose name contains TEXT (for profiling)

import BenchSupport
import CourierAuthentication
import CourierConcurrencyGroups
import CourierCore
import CourierTesting
import Foundation
import HTTPTypes

/// A credential that never expires, applied as a bearer header.
struct StaticToken: CredentialProvider {
    func apply(_ token: String, to request: inout HTTPRequest) throws {
        request.headerFields[.authorization] = "Bearer \(token)"
    }
    func refresh(_ token: String, through client: APIClient) async throws -> String { token }
}

let node = Node("bench", baseURL: "https://api.example.com/v1")
let stub = StubTransport.immediate(.json(#"{"id":7}"#))
let endpoint = Endpoint<RawResponse>(.get("users/7"), on: node)

enum Workload: String, CaseIterable {
    case plain = "APIClient, no flow control"
    case group = "+ ConcurrencyGroup (.default)"
    case passThrough = "+ a per-call interceptor that only calls next"
    case signing = "+ a per-call interceptor that sets Authorization"
    case authenticator = "+ Authenticator (no refresh due)"
    case both = "+ both"
}

func client(_ workload: Workload) -> APIClient {
    let group = workload == .group || workload == .both ? ConcurrencyGroup("bench") : nil
    var interceptors: [any Interceptor] =
        workload == .authenticator || workload == .both
        ? [Authenticator(StaticToken(), for: [node], credential: "t0k3n")] : []
    if workload == .signing {
        let token = "t0k3n"
        interceptors = [
            ClosureInterceptor { request, _, next in
                var request = request
                request.head.headerFields[.authorization] = "Bearer \(token)"
                return try await next(request)
            }
        ]
    }
    if workload == .passThrough {
        interceptors = [ClosureInterceptor { request, _, next in try await next(request) }]
    }
    var configuration = APIClient.Configuration(transport: stub, callInterceptors: interceptors)
    configuration.concurrencyGroup = group
    return APIClient(configuration: configuration)
}

struct BenchFailure: Error {}

/// 1,000 tasks at once, each making `perTask` calls; CPU µs per call.
func measure(_ client: APIClient, perTask: Int) async throws -> Double {
    let tasks = 1_000
    let start = cpuSeconds()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                for _ in 0..<perTask {
                    guard try await client.send(endpoint).statusCode == 200 else { throw BenchFailure() }
                }
            }
        }
        try await group.waitForAll()
    }
    return (cpuSeconds() - start) / Double(tasks * perTask) * 1e6
}

var rounds = 7
var perTask = 20
var only: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--calls-per-task": perTask = arguments.next().flatMap(Int.init) ?? perTask
    case "--only": only = arguments.next()
    default: rounds = Int(argument) ?? rounds
    }
}

let clients = Workload.allCases.filter { only == nil || $0.rawValue.contains(only ?? "") }.map {
    ($0, client($0))
}
for (_, client) in clients { _ = try await measure(client, perTask: 2) }  // warm up

var results: [Workload: [Double]] = [:]
for round in 0..<rounds {
    // Alternate the order, so that no workload always runs first.
    let order = round % 2 == 0 ? clients : clients.reversed()
    for (workload, client) in order {
        results[workload, default: []].append(try await measure(client, perTask: perTask))
    }
}

print("1,000 tasks × \(perTask) calls, medians of \(rounds) interleaved rounds; CPU µs per call")
print()
print("| workload | CPU µs/call | added vs. no flow control (per-round median) |")
print("|---|---|---|")
let plain = results[.plain] ?? []
for workload in Workload.allCases {
    let values = results[workload] ?? []
    let added = zip(values, plain).map { $0 - $1 }
    let addedText = workload == .plain ? "—" : String(format: "%+.2f", median(added))
    print("| \(workload.rawValue) | \(String(format: "%.2f", median(values))) | \(addedText) |")
}
