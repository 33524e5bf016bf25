// swift-tools-version: 6.2
// libFuzzer harnesses, in a package of their own: a fuzzer entry point inside
// the main package breaks its sanitized test builds. One executable per
// target (libFuzzer allows one entry point per binary); run them with
// scripts/fuzz.
import PackageDescription

/// A harness: an executable linking FuzzSupport and the modules it fuzzes.
func harness(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + dependencies,
        path: "Sources/\(name)",
        swiftSettings: [.swiftLanguageMode(.v6)]
    )
}

let courierCore = Target.Dependency.product(name: "CourierCore", package: "Courier")
let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")

let package = Package(
    name: "CourierFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(name: "CourierMockServer", path: "../MockServer"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(name: "FuzzSupport", path: "Sources/FuzzSupport", swiftSettings: [.swiftLanguageMode(.v6)]),
        // JSONValue, JanssonDecoder and the envelope peek.
        harness("fuzz-jansson", [.product(name: "CourierJansson", package: "Courier"), courierCore]),
        // CourierCurl's response-head parser against ResponseHeadCheck.
        harness(
            "fuzz-response-head", [.product(name: "CourierCurl", package: "Courier"), courierCore, httpTypes]),
        // RedirectPolicy's Location resolver.
        harness("fuzz-redirect", [courierCore, httpTypes]),
        // Base URLs, routes and query parameters into a request head.
        harness("fuzz-request", [courierCore]),
        // The multipart/form-data writer, read back by an RFC 2046 reader.
        harness("fuzz-multipart", [courierCore]),
        // courier-mock's contract-file parser.
        harness("fuzz-contract", [.product(name: "CourierMockServer", package: "CourierMockServer")]),
        // courier-mock's OpenAPI reading, request checks and answers.
        harness("fuzz-openapi", [.product(name: "CourierMockServer", package: "CourierMockServer")]),
    ]
)
