// swift-tools-version: 6.2
// The end-to-end proof: the contract suite (Tests/, over the contract files in
// Contracts/), the transport conformance suite (Conformance/) and the mock
// server's own tests (MockServerTests/). It depends on Courier's libraries
// and on the mock server, both by path; neither depends on it.

import Foundation
import PackageDescription

/// What the contract and conformance suites use: every transport, the test
/// doubles, and the mock server.
let suiteDependencies: [Target.Dependency] = [
    .product(name: "CourierCurl", package: "Courier"),
    .product(name: "CourierURLSession", package: "Courier"),
    .product(name: "CourierAsyncHTTPClient", package: "Courier"),
    .product(name: "CourierCodable", package: "Courier"),
    .product(name: "CourierTesting", package: "Courier"),
    .product(name: "CourierCache", package: "Courier"),
    .product(name: "CourierPlugins", package: "Courier"),
    .product(name: "CourierCookies", package: "Courier"),
    .product(name: "CourierOpenAPI", package: "Courier"),
    .product(name: "CourierResilience", package: "Courier"),
    .product(name: "CourierPagination", package: "Courier"),
    .product(name: "CourierAuthentication", package: "Courier"),
    .product(name: "CourierStreamFormats", package: "Courier"),
    .product(name: "CourierTLS", package: "Courier"),
    .product(name: "CourierConcurrencyGroups", package: "Courier"),
    .product(name: "CourierTransfers", package: "Courier"),
    .product(name: "CourierMultipart", package: "Courier"),
    .product(name: "CourierWebSocket", package: "Courier"),
    .product(name: "InMemoryLogging", package: "swift-log"),
    .product(name: "MetricsTestKit", package: "swift-metrics"),
    .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
    .product(name: "Tracing", package: "swift-distributed-tracing"),
    .product(name: "CourierMockServer", package: "CourierMockServer"),
    // Locks ThreadSanitizer sees (pthread), for scripts/check-tsan.
    .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
    // Child processes (openssl) without Foundation's Process, which can crash
    // on Linux reading /proc/self/fd while other threads open sockets.
    .product(name: "Subprocess", package: "swift-subprocess"),
]

let package = Package(
    name: "CourierContractTests",
    platforms: [.macOS(.v15)],
    dependencies: [
        // With the AsyncHTTPClient trait: CourierAsyncHTTPClient is the third transport column.
        .package(name: "Courier", path: "..", traits: ["AsyncHTTPClient"]),
        .package(name: "CourierMockServer", path: "../MockServer", traits: ["Recording", "TLS"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // The HTTPS origin behind a proxy's CONNECT tunnel (ProxyTests).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        // What the generated OpenAPI client (OpenAPI/ShopAPI) calls.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // The test backends of CourierPlugins' libraries.
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // The README's configuration example reads through its ConfigReader.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
    ],
    targets: [
        // The contract matrix: what the pipeline claims, end to end over every
        // transport, against the mock server (in-process, or MOCK_SERVER_URL).
        .testTarget(
            name: "ContractTests",
            dependencies: suiteDependencies + ["ShopOpenAPI", "PetstoreOpenAPI"],
            path: "Tests"
        ),
        // The shop's client as swift-openapi-generator wrote it from
        // OpenAPI/ShopAPI/openapi.yaml (scripts/generate-openapi), committed.
        .target(
            name: "ShopOpenAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "OpenAPI/ShopAPI/Generated"
        ),
        // The Petstore's client, written the same way from
        // OpenAPI/Petstore/openapi.yaml: courier-mock serves that document to it.
        .target(
            name: "PetstoreOpenAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "OpenAPI/Petstore/Generated"
        ),
        // One suite over every transport, against the mock server on real sockets.
        .testTarget(
            name: "TransportConformanceTests",
            dependencies: suiteDependencies + [
                // An HTTP/2 server for the prior-knowledge tests (the mock
                // server speaks HTTP/1.1).
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // To read back compressed request bodies as the server received them.
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "CourierCacheRedis", package: "Courier"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Conformance"
        ),
        // One instance of a fleet for FleetProcessTests, which starts several.
        .executableTarget(
            name: "courier-fleet-probe",
            dependencies: [
                .product(name: "CourierAuthentication", package: "Courier"),
                .product(name: "CourierCurl", package: "Courier"),
                .product(name: "CourierFleet", package: "Courier"),
            ],
            path: "FleetProbe"
        ),
    ]
)

// The mock server's own tests: matching, faults, journal, admin API. They prove
// the test tool, not Courier's concurrency: scripts/test runs them in its
// uninstrumented lane, and scripts/check-tsan leaves them out of its build
// (COURIER_MOCK_SERVER_TESTS=0), which would compile them for nothing.
if Context.environment["COURIER_MOCK_SERVER_TESTS"] != "0" {
    package.targets.append(
        .testTarget(
            name: "CourierMockServerTests",
            dependencies: [
                .product(name: "CourierMockServer", package: "CourierMockServer"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            path: "MockServerTests"
        ))
}

for target in package.targets where target.type != .system && target.type != .binary {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}

// The README examples that are run against courier-mock, each an executable of
// its own, when scripts/check-snippets has extracted them into ReadmeExamples/
// (not in git; not "Snippets/", which SwiftPM reserves for its own snippets):
// compiled with the suites, so they share one build of Courier and the mock
// server. (The examples that are only compiled, in ReadmeExamples/checked/,
// are compiled against this build without being linked.) They get a user's
// default settings, not the upcoming features above. COURIER_README_EXAMPLES=0
// leaves them out: the sanitizer builds (scripts/check-tsan, check-asan) do
// not compile them again, nor read the folder while check-snippets writes it.
let snippets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "ReadmeExamples")
let withExamples = Context.environment["COURIER_README_EXAMPLES"] != "0"
for name in ((try? FileManager.default.contentsOfDirectory(atPath: snippets.path)) ?? []).sorted()
where withExamples && name.hasPrefix("snippet-") {
    package.targets.append(
        .executableTarget(
            name: name,
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierCore", package: "Courier"),
                .product(name: "CourierCodable", package: "Courier"),
                .product(name: "CourierCurl", package: "Courier"),
                .product(name: "CourierJansson", package: "Courier"),
                .product(name: "CourierURLSession", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
                .product(name: "CourierCache", package: "Courier"),
                .product(name: "CourierCacheRedis", package: "Courier"),
                .product(name: "CourierPlugins", package: "Courier"),
                .product(name: "CourierCookies", package: "Courier"),
                .product(name: "CourierAsyncHTTPClient", package: "Courier"),
                .product(name: "CourierReachability", package: "Courier"),
                .product(name: "CourierResilience", package: "Courier"),
                .product(name: "CourierPagination", package: "Courier"),
                .product(name: "CourierAuthentication", package: "Courier"),
                .product(name: "CourierStreamFormats", package: "Courier"),
                .product(name: "CourierTLS", package: "Courier"),
                .product(name: "CourierConcurrencyGroups", package: "Courier"),
                .product(name: "CourierTransfers", package: "Courier"),
                .product(name: "CourierMultipart", package: "Courier"),
                .product(name: "CourierConfiguration", package: "Courier"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "CourierMockServer", package: "CourierMockServer"),
            ],
            path: "ReadmeExamples/\(name)"))
}
