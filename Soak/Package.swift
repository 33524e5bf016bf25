// swift-tools-version: 6.2
// The soak client: many calls through APIClient over one transport, with
// faults mixed in, watching the process's memory, file descriptors and CPU.
// A package of its own so the test command never builds it; run it with
// scripts/soak, which also starts courier-mock and loads it with wrk.
import PackageDescription

let package = Package(
    name: "CourierSoak",
    platforms: [.macOS(.v15)],
    dependencies: [
        // With the AsyncHTTPClient trait: async-http-client is soaked too.
        .package(name: "Courier", path: "..", traits: ["AsyncHTTPClient"]),
        // Command-line options.
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // The C heap's bytes in use (glibc's mallinfo2, which Glibc does not export to Swift).
        .target(name: "CSoakHeap", path: "Sources/CSoakHeap"),
        .executableTarget(
            name: "courier-soak",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierURLSession", package: "Courier"),
                .product(name: "CourierAsyncHTTPClient", package: "Courier"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "CSoakHeap",
            ],
            path: "Sources/courier-soak",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
