// swift-tools-version: 6.1
// Courier: describe each API once, as a value; Courier builds, sends, retries,
// validates the envelope and decodes. One package, one product per module.

import PackageDescription

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierCore", targets: ["CourierCore"]),
        .library(name: "CourierCodable", targets: ["CourierCodable"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .library(name: "CourierCurl", targets: ["CourierCurl"]),
        .library(name: "CourierJansson", targets: ["CourierJansson"]),
        .library(name: "CourierURLSession", targets: ["CourierURLSession"]),
        .library(name: "CourierMockServer", targets: ["CourierMockServer"]),
        .executable(name: "courier-mock", targets: ["courier-mock"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // The mock server: sockets below HTTP (faults), argument parsing, logging,
        // SHA-256 for /upload and gzip for /gzip.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "CourierCore",
            dependencies: [.product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/CourierCore/Sources"
        ),
        .target(
            name: "CourierCodable",
            dependencies: ["CourierCore"],
            path: "Modules/CourierCodable/Sources"
        ),
        .target(
            name: "CourierTesting",
            dependencies: ["CourierCore"],
            path: "Modules/CourierTesting/Sources"
        ),
        .target(
            name: "Courier",
            dependencies: ["CourierCore", "CourierCodable", "CourierCurl"],
            path: "Modules/Courier/Sources"
        ),
        // The demo client for the shop in ContractTests/Contracts/shop.json.
        .executableTarget(
            name: "courier-demo",
            dependencies: ["Courier"],
            path: "Examples/CourierDemo"
        ),
        // Links CourierCore alone; scripts/check-linkage inspects what it pulls in.
        .executableTarget(
            name: "CourierLinkageProbe",
            dependencies: ["CourierCore"],
            path: "Tools/CourierLinkageProbe"
        ),
        .systemLibrary(
            name: "CCurl",
            path: "Modules/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "CourierCurl",
            dependencies: ["CourierCore", "CCurl"],
            path: "Modules/CourierCurl/Sources"
        ),
        .testTarget(
            name: "CourierCurlTests",
            dependencies: ["CourierCurl", "CCurl"],
            path: "Modules/CourierCurl/Tests"
        ),
        // One suite over every transport, against the mock server on real sockets.
        .testTarget(
            name: "TransportConformanceTests",
            dependencies: [
                "CourierCurl", "CourierURLSession", "CourierCodable", "CourierTesting", "CourierMockServer",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Modules/TransportConformance/Tests"
        ),
        // The contract matrix: what the pipeline claims, end to end over every
        // transport, against the mock server (in-process, or MOCK_SERVER_URL).
        .testTarget(
            name: "ContractTests",
            dependencies: [
                "CourierCurl", "CourierURLSession", "CourierCodable", "CourierTesting", "CourierMockServer",
            ],
            path: "ContractTests/Tests"
        ),
        .systemLibrary(
            name: "CJansson",
            path: "Modules/CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        // JSON through jansson: JSONValue, a Decodable decoder over jansson's
        // tree, and envelope reading from the one parse.
        // The arena behind jansson's allocator hooks (C, process-global hooks).
        .target(
            name: "CJanssonArena",
            path: "Modules/CJanssonArena",
            linkerSettings: [.linkedLibrary("jansson")]
        ),
        .target(
            name: "CourierJansson",
            dependencies: ["CourierCore", "CourierCodable", "CJansson", "CJanssonArena"],
            path: "Modules/CourierJansson/Sources"
        ),
        .testTarget(
            name: "CourierJanssonTests",
            dependencies: ["CourierJansson", "CourierCodable", "CourierTesting", "CJansson"],
            path: "Modules/CourierJansson/Tests"
        ),
        .target(
            name: "CourierURLSession",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/CourierURLSession/Sources"
        ),
        // The mock server shares no code with the client it proves: it imports
        // none of the Courier client modules.
        .target(
            name: "CourierMockServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            path: "MockServer/Sources/CourierMockServer"
        ),
        .executableTarget(
            name: "courier-mock",
            dependencies: [
                "CourierMockServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "MockServer/Sources/courier-mock"
        ),
        .testTarget(
            name: "CourierMockServerTests",
            dependencies: [
                "CourierMockServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "MockServer/Tests/CourierMockServerTests"
        ),
        .testTarget(
            name: "CourierCoreTests",
            dependencies: ["CourierCore", "CourierTesting", "CourierCodable"],
            path: "Modules/CourierCore/Tests"
        ),
        .testTarget(
            name: "CourierCodableTests",
            dependencies: ["CourierCodable", "CourierTesting"],
            path: "Modules/CourierCodable/Tests"
        ),
        .testTarget(
            name: "CourierTestingTests",
            dependencies: ["CourierTesting", "CourierCodable"],
            path: "Modules/CourierTesting/Tests"
        ),
    ]
)

// Common settings for every Swift target: Swift 6 mode is the tools default;
// these upcoming features keep dependencies explicit and existentials visible.
for target in package.targets where target.type != .system && target.type != .binary {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
