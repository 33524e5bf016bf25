// swift-tools-version: 6.1
// The libFuzzer harness for CourierJansson, in a package of its own: a
// fuzzer entry point inside the main package breaks its sanitized test
// builds. Run it with scripts/fuzz.
import PackageDescription

let package = Package(
    name: "CourierFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Courier", path: "..")],
    targets: [
        .executableTarget(
            name: "fuzz-jansson",
            dependencies: [
                .product(name: "CourierJansson", package: "Courier"),
                .product(name: "CourierCore", package: "Courier"),
            ],
            path: "Sources/fuzz-jansson",
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
