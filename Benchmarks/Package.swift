// swift-tools-version: 6.2
// Benchmarks: a package of its own, so CI never builds the peers it compares against.

import PackageDescription

/// A benchmark executable: its local targets and the Courier modules it measures.
func bench(_ name: String, _ local: [Target.Dependency], courier: [String], ahc: Bool = false) -> Target {
    let measured: [Target.Dependency] = courier.map { .product(name: $0, package: "Courier") }
    let peers: [Target.Dependency] =
        ahc ? [.product(name: "AsyncHTTPClient", package: "async-http-client")] : []
    return .executableTarget(name: name, dependencies: ["BenchSupport"] + local + measured + peers)
}

/// SwiftNIO's HTTP/1.1 and WebSocket pieces, for the servers the benchmarks
/// run against and the raw WebSocket client.
let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOWebSocket", package: "swift-nio"),
]

let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so the root checkout can live in a folder of any name.
        .package(name: "Courier", path: "..", traits: ["AsyncHTTPClient"]),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // For the bare SwiftNIO server courier-mock is measured against.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // The baseline: libcurl driven from C, as an application in C would.
        .target(name: "CRawCurl", linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("jansson")]),
        .target(name: "BenchSupport"),
        // jansson for the hand-written baselines the decoders are measured against.
        .systemLibrary(name: "CBenchJansson", pkgConfig: "jansson"),
        // Every transport against nginx, next to raw C libcurl.
        bench(
            "courier-bench", ["CRawCurl"],
            courier: ["CourierCurl", "CourierURLSession", "CourierAsyncHTTPClient"],
            ahc: true),
        // CurlTransport's event loops with 10,000 idle connections, and
        // 10,000 requests in flight.
        bench("courier-scale-bench", [], courier: ["CourierCurl"]),
        // 100 concurrent requests over HTTP/2: CourierCurl (h2c and TLS) and
        // AsyncHTTPClient (TLS).
        bench("courier-h2-bench", [], courier: ["CourierCurl", "CourierTLS"], ahc: true),
        // Decoders next to hand-written jansson.
        bench("courier-json-bench", ["CBenchJansson"], courier: ["CourierJansson", "CourierCodable"]),
        // The call pipeline's own cost, over a stub transport (no sockets).
        bench("courier-pipeline-bench", [], courier: ["CourierCore", "CourierCodable", "CourierTesting"]),
        // What flow control adds to a call: a ConcurrencyGroup and an
        // Authenticator with no refresh due, 1,000 calls at once.
        bench(
            "courier-flow-bench", [],
            courier: ["CourierCore", "CourierAuthentication", "CourierConcurrencyGroups", "CourierTesting"]),
        // hiredis from C: the raw round trip a Redis hit is measured against.
        .systemLibrary(name: "CBenchHiredis"),
        // A Redis hit through the pipeline next to a raw GET and the network.
        bench(
            "courier-redis-bench", ["CBenchHiredis"],
            courier: ["CourierCache", "CourierCacheRedis", "CourierCurl", "CourierCodable"]),
        // The rate limiter's cost: in memory per call (pipeline over a stub),
        // and on Redis next to a raw EVALSHA of the same script from C.
        bench(
            "courier-fleet-bench", ["CBenchHiredis"],
            courier: ["CourierCore", "CourierResilience", "CourierFleet", "CourierTesting"]),
        // A cache hit (memory, disk) next to the same call over the network.
        bench("courier-cache-bench", [], courier: ["CourierCache", "CourierCurl", "CourierCodable"]),
        // Streamed bodies: a million server-sent events and 100 MB of NDJSON
        // through APIClient, next to async-http-client and URLSession with
        // lines split by hand; RSS under a sleeping reader.
        bench(
            "courier-stream-bench", [],
            courier: [
                "CourierCurl", "CourierURLSession", "CourierAsyncHTTPClient", "CourierJansson",
                "CourierCodable", "CourierStreamFormats",
            ],
            ahc: true),
        // The typed call: GET an envelope and decode the model, every stack.
        bench(
            "courier-typed-bench", ["CRawCurl"],
            courier: ["CourierCurl", "CourierJansson", "CourierCodable"],
            ahc: true),
        // WebSocket round trips through Courier over each transport, beside a
        // raw SwiftNIO client, against ws-echo-server (scripts/bench-websocket).
        bench(
            "courier-ws-bench", nio,
            courier: ["CourierCore", "CourierCurl", "CourierAsyncHTTPClient", "CourierWebSocket"], ahc: true),
        .executableTarget(name: "ws-echo-server", dependencies: nio),
        // The SwiftNIO floor under courier-mock (scripts/bench-mock): the
        // same decoder and event loops, a fixed answer, nothing else.
        .executableTarget(name: "nio-floor-server", dependencies: nio),
    ]
)
