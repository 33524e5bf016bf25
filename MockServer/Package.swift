// swift-tools-version: 6.2
// courier-mock: the SwiftNIO mock server the contract suite runs against, as
// a library (CourierMockServer) and a command (courier-mock). A package of
// its own, so that apps depending on Courier's libraries never resolve
// SwiftNIO; it imports none of Courier's client modules.

import PackageDescription

let package = Package(
    name: "CourierMockServer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CourierMockServer", targets: ["CourierMockServer"]),
        .executable(name: "courier-mock", targets: ["courier-mock"]),
    ],
    traits: [
        .trait(
            name: "Recording",
            description: """
                Builds `record` and the admin API's recordings: forwarding to the real API over \
                async-http-client, https through NIOSSL. Off by default: those two packages (BoringSSL's \
                C sources among them) are most of a cold build, and serving, validating and replaying \
                need neither. Without it, `record` fails at once and says how to build it.
                """),
        .trait(
            name: "TLS",
            description: """
                Serves https (`--tls`) on NIOSSL (the certificate made at start comes from the system's \
                libcrypto, linked anyway). Off by default for the same reason as Recording; without it, \
                `--tls` fails at once and says how to build it.
                """),
    ],
    dependencies: [
        // Sockets below HTTP (faults), argument parsing, logging, gzip for /gzip.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        // Recording: forwarding each request to the real API, https with a
        // private CA included (the same client CourierAsyncHTTPClient wraps).
        // Behind the Recording trait: without it neither is resolved or built.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Reading OpenAPI documents written in YAML (serve --openapi).
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    ],
    targets: [
        // SHA-256, and the certificate `--tls` makes, from the system's
        // OpenSSL libcrypto (Debian: libssl-dev).
        .systemLibrary(
            name: "CLibCrypto",
            path: "Sources/CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "CourierMockServer",
            dependencies: [
                "CLibCrypto",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client",
                    condition: .when(traits: ["Recording"])),
                .product(
                    name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Recording", "TLS"])),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Sources/CourierMockServer"
        ),
        .executableTarget(
            name: "courier-mock",
            dependencies: [
                "CourierMockServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/courier-mock"
        ),
    ]
)

for target in package.targets where target.type != .system && target.type != .binary {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
