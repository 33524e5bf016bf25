// swift-tools-version: 6.2
// Courier: describe each API once, as a value; Courier builds, sends, retries,
// validates the envelope and decodes. The libraries, one product per module;
// the mock server (MockServer/) and the end-to-end suites (ContractTests/)
// are packages of their own.

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
        .library(name: "CourierCache", targets: ["CourierCache"]),
        .library(name: "CourierCacheRedis", targets: ["CourierCacheRedis"]),
        .library(name: "CourierRedis", targets: ["CourierRedis"]),
        .library(name: "CourierFleet", targets: ["CourierFleet"]),
        .library(name: "CourierWebSocket", targets: ["CourierWebSocket"]),
        .library(name: "CourierPlugins", targets: ["CourierPlugins"]),
        .library(name: "CourierCookies", targets: ["CourierCookies"]),
        .library(name: "CourierAsyncHTTPClient", targets: ["CourierAsyncHTTPClient"]),
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        .library(name: "CourierReachability", targets: ["CourierReachability"]),
        .library(name: "CourierResilience", targets: ["CourierResilience"]),
        .library(name: "CourierPagination", targets: ["CourierPagination"]),
        .library(name: "CourierAuthentication", targets: ["CourierAuthentication"]),
        .library(name: "CourierStreamFormats", targets: ["CourierStreamFormats"]),
        .library(name: "CourierTLS", targets: ["CourierTLS"]),
        .library(name: "CourierProxies", targets: ["CourierProxies"]),
        .library(name: "CourierConcurrencyGroups", targets: ["CourierConcurrencyGroups"]),
        .library(name: "CourierTargets", targets: ["CourierTargets"]),
        .library(name: "CourierTransfers", targets: ["CourierTransfers"]),
        .library(name: "CourierMultipart", targets: ["CourierMultipart"]),
        .library(name: "CourierConfiguration", targets: ["CourierConfiguration"]),
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: """
                Builds CourierAsyncHTTPClient, the transport over async-http-client (SwiftNIO). Off by \
                default: an app that does not enable it resolves none of SwiftNIO's packages. Turns on \
                Configuration too, which costs nothing more: async-http-client depends on \
                swift-configuration itself.
                """,
            enabledTraits: ["Configuration"]),
        .trait(
            name: "Configuration",
            description: """
                Builds CourierConfiguration: the client's, the nodes' and the transports' settings read \
                from swift-configuration's ConfigReader (environment variables, JSON files, arguments). \
                Off by default: an app that does not enable it resolves no swift-configuration.
                """),
    ],
    dependencies: [
        // The only dependency of the libraries. The mock server (MockServer/)
        // and the end-to-end suites (ContractTests/) are packages of their
        // own, so that an app depending on Courier resolves nothing else
        // (scripts/check-consumer proves it).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // CourierPlugins' only: the server ecosystem's logging, metrics and
        // tracing APIs (small, dependency-free packages, built only for an
        // app that uses CourierPlugins; resolved for every consumer, so
        // scripts/check-consumer lists them).
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // CourierOpenAPI's only: the runtime generated clients call (it depends
        // on swift-http-types alone).
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // CourierAsyncHTTPClient's only, behind the AsyncHTTPClient trait:
        // without the trait SwiftPM neither resolves nor builds them.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // CourierConfiguration's only, behind the Configuration trait (and
        // async-http-client's own dependency). Its default trait, JSON, reads
        // JSON files and needs no other package.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        // Tests only: starting child processes (Foundation's Process on Linux
        // can crash reading /proc/self/fd while other threads open sockets).
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // ThreadSanitizer annotations for CourierCore's lock and CourierCurl's
        // hand-over of a response (weak symbols: no-ops unless the build is
        // sanitized).
        .target(name: "CCourierSanitizer", path: "Modules/CCourierSanitizer"),
        // OpenSSL's libcrypto, CourierCore's digests on Linux (Apple
        // platforms use CryptoKit): the system's, which Debian's libcurl
        // links too, rather than a hash written by hand.
        .systemLibrary(
            name: "CCrypto",
            path: "Modules/CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "CourierCore",
            dependencies: [
                "CCourierSanitizer", .product(name: "HTTPTypes", package: "swift-http-types"),
                .target(
                    name: "CCrypto", condition: .when(platforms: [.linux, .android, .windows, .openbsd])),
            ],
            path: "Modules/CourierCore/Sources"
        ),
        .target(
            name: "CourierCodable",
            dependencies: ["CourierCore"],
            path: "Modules/CourierCodable/Sources"
        ),
        .target(
            name: "CourierTesting",
            dependencies: ["CourierCore", "CourierResilience"],
            path: "Modules/CourierTesting/Sources"
        ),
        // A satellite of CourierCore: the circuit breaker, the reachability
        // gate and the wait for the network, each a step of the attempt.
        .target(
            name: "CourierResilience",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/CourierResilience/Sources"
        ),
        // A satellite of CourierCore: pages as an AsyncSequence, by page
        // number, offset, cursor or Link header.
        .target(
            name: "CourierPagination",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/CourierPagination/Sources"
        ),
        // A satellite of CourierCore: authenticators that apply, refresh
        // (once for concurrent calls) and retry a credential.
        .target(
            name: "CourierAuthentication",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/CourierAuthentication/Sources"
        ),
        .testTarget(
            name: "CourierAuthenticationTests",
            dependencies: [
                "CourierAuthentication", "CourierCore", "CourierTesting", "CourierCodable",
                "CourierTestSupport",
            ],
            path: "Modules/CourierAuthentication/Tests"
        ),
        // A satellite of CourierCore: what a streamed body says — lines,
        // server-sent events (and the reconnecting event stream), NDJSON.
        .target(
            name: "CourierStreamFormats",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/CourierStreamFormats/Sources"
        ),
        .testTarget(
            name: "CourierStreamFormatsTests",
            dependencies: [
                "CourierStreamFormats", "CourierCore", "CourierTesting", "CourierCodable",
                "CourierTestSupport",
            ],
            path: "Modules/CourierStreamFormats/Tests"
        ),
        .testTarget(
            name: "CourierPaginationTests",
            dependencies: [
                "CourierPagination", "CourierCore", "CourierTesting", "CourierCodable", "CourierTestSupport",
            ],
            path: "Modules/CourierPagination/Tests"
        ),
        .testTarget(
            name: "CourierResilienceTests",
            dependencies: [
                "CourierResilience", "CourierCore", "CourierTesting", "CourierCodable", "CourierTestSupport",
            ],
            path: "Modules/CourierResilience/Tests"
        ),
        // A satellite of CourierCore: whom a transport trusts over TLS — a
        // private CA, a client certificate, public-key pins per host.
        .target(
            name: "CourierTLS",
            path: "Modules/CourierTLS/Sources"
        ),
        .testTarget(
            name: "CourierTLSTests",
            dependencies: ["CourierTLS"],
            path: "Modules/CourierTLS/Tests"
        ),
        // A satellite of CourierCore: where a request goes before its origin
        // — HTTP, HTTPS and SOCKS5 proxies, the no-proxy list, the
        // environment's proxies when asked — one value for every transport.
        .target(
            name: "CourierProxies",
            dependencies: ["CourierCore", "CourierTLS"],
            path: "Modules/CourierProxies/Sources"
        ),
        .testTarget(
            name: "CourierProxiesTests",
            dependencies: ["CourierProxies", "CourierCore"],
            path: "Modules/CourierProxies/Tests"
        ),
        // A satellite of CourierCore: calls that see each other in a group —
        // cancel the others, ignore the newest, queue by priority.
        .target(
            name: "CourierConcurrencyGroups",
            dependencies: ["CourierCore"],
            path: "Modules/CourierConcurrencyGroups/Sources"
        ),
        .testTarget(
            name: "CourierConcurrencyGroupsTests",
            dependencies: [
                "CourierConcurrencyGroups", "CourierCore", "CourierTesting", "CourierCodable",
                "CourierTestSupport", "CourierStreamFormats",
            ],
            path: "Modules/CourierConcurrencyGroups/Tests"
        ),
        // A satellite of CourierCore: Moya-style targets, an enum whose cases
        // map to endpoints.
        .target(
            name: "CourierTargets",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/CourierTargets/Sources"
        ),
        .testTarget(
            name: "CourierTargetsTests",
            dependencies: [
                "CourierTargets", "CourierCore", "CourierTesting", "CourierTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Modules/CourierTargets/Tests"
        ),
        // A satellite of CourierCore: downloads to a file (resumable), their
        // bounds, and transfers whose progress is a sequence.
        .target(
            name: "CourierTransfers",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/CourierTransfers/Sources"
        ),
        // A satellite of CourierCore: multipart/form-data bodies.
        .target(
            name: "CourierMultipart",
            dependencies: ["CourierCore"],
            path: "Modules/CourierMultipart/Sources"
        ),
        .testTarget(
            name: "CourierMultipartTests",
            dependencies: ["CourierMultipart", "CourierCore", "CourierTestSupport"],
            path: "Modules/CourierMultipart/Tests"
        ),
        .target(
            name: "Courier",
            dependencies: [
                "CourierCore", "CourierCodable", "CourierResilience", "CourierPagination",
                "CourierAuthentication", "CourierStreamFormats", "CourierTLS", "CourierConcurrencyGroups",
                "CourierTargets", "CourierTransfers", "CourierMultipart", "CourierProxies",
                // libcurl where the system has it; URLSession on Apple platforms.
                .target(name: "CourierCurl", condition: .when(platforms: [.linux, .macOS])),
                .target(
                    name: "CourierURLSession",
                    condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
            ],
            path: "Modules/Courier/Sources"
        ),
        // The demo client for the shop in ContractTests/Contracts/shop.json.
        .executableTarget(
            name: "courier-demo",
            dependencies: [
                "Courier", "CourierCache", "CourierPlugins", .product(name: "Logging", package: "swift-log"),
            ],
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
        // zlib, for CourierContentCoding.
        .systemLibrary(
            name: "CZlib",
            path: "Modules/CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Brotli's and Zstandard's decoders, for the `br` and `zstd` codings.
        .systemLibrary(
            name: "CBrotli",
            path: "Modules/CBrotli",
            providers: [.apt(["libbrotli-dev"])]
        ),
        .systemLibrary(
            name: "CZstd",
            path: "Modules/CZstd",
            providers: [.apt(["libzstd-dev"])]
        ),
        // The content codings (gzip, deflate, br, zstd) CourierCurl and
        // CourierAsyncHTTPClient undo themselves, one decoder for both.
        .target(
            name: "CourierContentCoding",
            dependencies: ["CourierCore", "CZlib", "CBrotli", "CZstd"],
            path: "Modules/CourierContentCoding/Sources"
        ),
        // Certificate pinning over the chain, for libcurl built on OpenSSL
        // (Debian's libcurl4-openssl-dev links the same libssl).
        .systemLibrary(
            name: "CCurlOpenSSL",
            path: "Modules/CCurlOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "CourierCurl",
            dependencies: [
                "CourierCore", "CourierTLS", "CourierProxies", "CCurl", "CCourierSanitizer",
                "CourierContentCoding", "CourierWebSocket",
                .target(name: "CCurlOpenSSL", condition: .when(platforms: [.linux])),
            ],
            path: "Modules/CourierCurl/Sources"
        ),
        .testTarget(
            name: "CourierCurlTests",
            dependencies: ["CourierCurl", "CCurl"],
            path: "Modules/CourierCurl/Tests"
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
            dependencies: [
                "CourierCore", "CourierTLS", "CourierProxies", "CourierWebSocket",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Modules/CourierURLSession/Sources"
        ),
        .testTarget(
            name: "CourierURLSessionTests",
            dependencies: [
                "CourierURLSession", "CourierTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Modules/CourierURLSession/Tests"
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "Modules/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The response cache: read and write modes, a memory tier and a
        // SQLite disk tier, HTTP revalidation.
        .target(
            name: "CourierCache",
            dependencies: [
                "CourierCore", "CSQLite", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Modules/CourierCache/Sources"
        ),
        .testTarget(
            name: "CourierCacheTests",
            dependencies: [
                "CourierCache", "CourierAuthentication", "CourierTesting", "CourierCodable",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Modules/CourierCache/Tests"
        ),
        // A second process for the disk store's tests: two processes, one directory.
        .executableTarget(
            name: "courier-cache-probe",
            dependencies: ["CourierCache", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tools/CourierCacheProbe"
        ),
        .systemLibrary(
            name: "CHiredis",
            path: "Modules/CHiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        // Redis through hiredis on a thread of its own (connection, pipeline,
        // scripts, reconnection): what the cache's shared store and a fleet's
        // shared state both use.
        .target(
            name: "CourierRedis",
            dependencies: ["CourierCore", "CHiredis"],
            path: "Modules/CourierRedis/Sources"
        ),
        // A fleet of instances as one client: the rate limiter's, circuit
        // breaker's and retry budget's state on Redis, one token refresh.
        .target(
            name: "CourierFleet",
            dependencies: [
                "CourierCore", "CourierResilience", "CourierRedis", "CourierAuthentication",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .target(
                    name: "CCrypto", condition: .when(platforms: [.linux, .android, .windows, .openbsd])),
            ],
            path: "Modules/CourierFleet/Sources"
        ),
        .testTarget(
            name: "CourierFleetTests",
            dependencies: [
                "CourierFleet", "CourierResilience", "CourierRedis", "CourierTesting", "CourierTestSupport",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Modules/CourierFleet/Tests"
        ),
        // WebSocket connections through the pipeline: the API and what a
        // transport implements (CourierCurl, CourierAsyncHTTPClient and
        // CourierURLSession depend on it to do so).
        .target(
            name: "CourierWebSocket",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/CourierWebSocket/Sources"
        ),
        // CourierCache's store on Redis, for a fleet that shares one cache.
        // Its own module: CourierCache stays free of it.
        .target(
            name: "CourierCacheRedis",
            dependencies: [
                "CourierCore", "CourierCache", "CourierRedis",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Modules/CourierCacheRedis/Sources"
        ),
        .testTarget(
            name: "CourierCacheRedisTests",
            dependencies: [
                "CourierCacheRedis", "CourierRedis", "CourierCache", "CourierAuthentication",
                "CourierTesting",
                "CourierCodable",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            path: "Modules/CourierCacheRedis/Tests"
        ),
        // CurlTransfer's lifetime on every path that ends a transfer, run under
        // AddressSanitizer by scripts/check-curl-lifetime.
        .executableTarget(
            name: "courier-curl-lifetime-probe",
            dependencies: ["Courier"],
            path: "Tools/CourierCurlLifetimeProbe"
        ),
        // A second client process for the Redis store's tests: two processes, one cache.
        .executableTarget(
            name: "courier-cache-redis-probe",
            dependencies: ["CourierCacheRedis", "CourierCache", "CourierCodable", "CourierTesting"],
            path: "Tools/CourierCacheRedisProbe"
        ),
        .systemLibrary(
            name: "CPSL",
            path: "Modules/CPSL",
            pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev", "publicsuffix"])]
        ),
        // The cookie jar: RFC 6265 storage and matching, the public suffix
        // rule through libpsl, a JSON file.
        .target(
            name: "CourierCookies",
            dependencies: ["CourierCore", "CPSL", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/CourierCookies/Sources"
        ),
        .testTarget(
            name: "CourierCookiesTests",
            dependencies: [
                "CourierCookies", "CourierCore", "CourierTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Modules/CourierCookies/Tests"
        ),
        // The transport over async-http-client; empty unless the AsyncHTTPClient trait is on.
        .target(
            name: "CourierAsyncHTTPClient",
            dependencies: [
                "CourierCore", "CourierTLS", "CourierProxies", "CourierWebSocket",
                .target(name: "CourierContentCoding", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client",
                    condition: .when(traits: ["AsyncHTTPClient"])),
                .product(
                    name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(
                    name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(
                    name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(
                    name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(
                    name: "NIOWebSocket", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(
                    name: "NIOConcurrencyHelpers", package: "swift-nio",
                    condition: .when(traits: ["AsyncHTTPClient"])),
            ],
            path: "Modules/CourierAsyncHTTPClient/Sources"
        ),
        // Settings from swift-configuration; empty unless the Configuration trait is on.
        .target(
            name: "CourierConfiguration",
            dependencies: [
                "CourierCore", "CourierResilience", "CourierURLSession", "CourierAsyncHTTPClient",
                "CourierTLS", "CourierTransfers", "CourierProxies",
                .target(name: "CourierCurl", condition: .when(platforms: [.linux, .macOS])),
                .product(
                    name: "Configuration", package: "swift-configuration",
                    condition: .when(traits: ["Configuration"])),
            ],
            path: "Modules/CourierConfiguration/Sources"
        ),
        .testTarget(
            name: "CourierConfigurationTests",
            dependencies: [
                "CourierConfiguration", "CourierCore", "CourierResilience", "CourierURLSession",
                "CourierAsyncHTTPClient", "CourierTLS", "CourierTransfers", "CourierProxies",
                .target(name: "CourierCurl", condition: .when(platforms: [.linux, .macOS])),
                .product(
                    name: "Configuration", package: "swift-configuration",
                    condition: .when(traits: ["Configuration"])),
                // A JSON file's path, for swift-configuration's FileProvider.
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Modules/CourierConfiguration/Tests"
        ),
        // A ClientTransport for clients generated by swift-openapi-generator.
        .target(
            name: "CourierOpenAPI",
            dependencies: [
                "CourierCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Modules/CourierOpenAPI/Sources"
        ),
        .systemLibrary(
            name: "CMnl",
            path: "Modules/CMnl",
            pkgConfig: "libmnl",
            providers: [.apt(["libmnl-dev"])]
        ),
        // Reachability: netlink on Linux (libmnl), NWPathMonitor on Apple platforms.
        .target(
            name: "CourierReachability",
            dependencies: [
                "CourierCore", "CourierResilience",
                .target(name: "CMnl", condition: .when(platforms: [.linux])),
            ],
            path: "Modules/CourierReachability/Sources"
        ),
        .testTarget(
            name: "CourierReachabilityTests",
            dependencies: [
                "CourierReachability", "CourierResilience", "CourierCore", "CourierTesting",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Modules/CourierReachability/Tests"
        ),
        .testTarget(
            name: "CourierOpenAPITests",
            dependencies: [
                "CourierOpenAPI", "CourierCore", "CourierTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Modules/CourierOpenAPI/Tests"
        ),
        // Plugins on the server ecosystem's libraries: access token, logging
        // (swift-log), activity, metrics (swift-metrics), tracing
        // (swift-distributed-tracing).
        .target(
            name: "CourierPlugins",
            dependencies: [
                "CourierCore", "CourierAuthentication", "CourierContentCoding", "CourierWebSocket",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ],
            path: "Modules/CourierPlugins/Sources"
        ),
        .testTarget(
            name: "CourierPluginsTests",
            dependencies: [
                "CourierPlugins", "CourierAuthentication", "CourierStreamFormats", "CourierTesting",
                "CourierCodable", "CourierContentCoding", "CourierTestSupport",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Modules/CourierPlugins/Tests"
        ),
        // What the libraries' unit tests share (fixtures, HeldTransport): a
        // target of the package, never a product.
        .target(
            name: "CourierTestSupport",
            dependencies: ["CourierCore", "CourierTesting", "CourierCodable"],
            path: "Modules/CourierCore/TestSupport"
        ),
        .testTarget(
            name: "CourierCoreTests",
            dependencies: [
                "CourierCore", "CourierTesting", "CourierCodable", "CourierTestSupport",
                // Integration of the satellites' authenticator, event
                // streams and concurrency groups with the pipeline.
                "CourierAuthentication", "CourierStreamFormats", "CourierConcurrencyGroups",
                "CourierTransfers", "CourierMultipart",
            ],
            path: "Modules/CourierCore/Tests"
        ),
        .testTarget(
            name: "CourierCodableTests",
            dependencies: [
                "CourierCodable", "CourierTesting", .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
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
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
