// swift-tools-version: 6.1
// Benchmarks: a package of its own, so CI never builds the peers it compares against.

import PackageDescription

let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so the root checkout can live in a folder of any name.
        .package(name: "Courier", path: "..", traits: ["AsyncHTTPClient"]),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // The baseline: libcurl driven from C, as an application in C would.
        .target(name: "CRawCurl", linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("jansson")]),
        .target(name: "BenchSupport"),
        .executableTarget(
            name: "courier-bench",
            dependencies: [
                "CRawCurl", "BenchSupport",
                .product(name: "CourierCurl", package: "Courier"),
                .product(name: "CourierURLSession", package: "Courier"),
                .product(name: "CourierAsyncHTTPClient", package: "Courier"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // CurlTransport's event loops with 10,000 idle connections, and
        // 10,000 requests in flight.
        .executableTarget(
            name: "courier-scale-bench",
            dependencies: ["BenchSupport", .product(name: "CourierCurl", package: "Courier")]
        ),
        // jansson for the hand-written baselines the decoders are measured against.
        .systemLibrary(name: "CBenchJansson", pkgConfig: "jansson"),
        .executableTarget(
            name: "courier-json-bench",
            dependencies: [
                "CBenchJansson", "BenchSupport",
                .product(name: "CourierJansson", package: "Courier"),
                .product(name: "CourierCodable", package: "Courier"),
            ]
        ),
        // The call pipeline's own cost, over a stub transport (no sockets).
        .executableTarget(
            name: "courier-pipeline-bench",
            dependencies: [
                "BenchSupport",
                .product(name: "CourierCore", package: "Courier"),
                .product(name: "CourierCodable", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
            ]
        ),
        // What flow control adds to a call: a ConcurrencyGroup and an
        // Authenticator with no refresh due, 1,000 calls at once.
        .executableTarget(
            name: "courier-flow-bench",
            dependencies: [
                "BenchSupport",
                .product(name: "CourierCore", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
            ]
        ),
        // A cache hit (memory, disk) next to the same call over the network.
        .executableTarget(
            name: "courier-cache-bench",
            dependencies: [
                "BenchSupport",
                .product(name: "CourierCache", package: "Courier"),
                .product(name: "CourierCurl", package: "Courier"),
                .product(name: "CourierCodable", package: "Courier"),
            ]
        ),
        // The typed call: GET an envelope and decode the model, every stack.
        .executableTarget(
            name: "courier-typed-bench",
            dependencies: [
                "CRawCurl", "BenchSupport",
                .product(name: "CourierCurl", package: "Courier"),
                .product(name: "CourierJansson", package: "Courier"),
                .product(name: "CourierCodable", package: "Courier"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ]
)
