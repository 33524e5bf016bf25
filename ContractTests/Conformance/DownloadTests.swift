@_spi(Transport) import CourierCore
import CourierMockServer
import CourierTransfers
import Foundation
import HTTPTypes
import Testing

/// Downloads are atomic on every transport: written beside the destination,
/// moved into place only when complete, and every failure — a reset, a limit,
/// cancellation, a file in the way — leaves nothing behind, so a retry starts
/// clean. Limits hold on announced and on decoded (decompressed) lengths.
struct DownloadTests {
    static let payload = String(repeating: "0123456789abcdef", count: 4096)  // 64 KiB

    /// A folder of its own for the test, removed afterwards.
    static func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    static func entries(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// Download files FoundationNetworking would leave in `$TMPDIR` (`<UUID>.tmp`).
    static func foundationTemporaryFiles() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []
        return Set(names.filter { $0.hasSuffix(".tmp") && $0.count == 40 })
    }

    @Test(arguments: TransportKind.allCases)
    func aResetLeavesNothingAndARetrySucceeds(kind: TransportKind) async throws {
        let json = #"""
            {"id": "dl", "request": {"urlPath": "/dl"},
             "responses": [{"body": "\#(Self.payload)", "fault": {"name": "resetMidBody", "afterBytes": 1000}},
                           {"body": "\#(Self.payload)"}]}
            """#
        let stubs = try ContractLoader.parse(Array(json.utf8), file: "<test>")
        try await Self.withFolder { folder in
            try await withMockServer(.init(stubs: stubs)) { server async throws in
                let before = Self.foundationTemporaryFiles()
                let destination = DownloadTarget(folder.appendingPathComponent("file.bin"))
                await expectTransportError(.connectionReset, "\(kind) reset mid-download") {
                    try await kind.transport.send(
                        request(server, "/dl"), options: .init(destination: destination))
                }
                #expect(Self.entries(folder).isEmpty, "left behind: \(Self.entries(folder))")
                #expect(Self.foundationTemporaryFiles().subtracting(before).isEmpty)
                // The same destination again: nothing in the way.
                let response = try await kind.transport.send(
                    request(server, "/dl"), options: .init(destination: destination))
                #expect(response.body == .file(destination.url))
                #expect(try String(contentsOf: destination.url, encoding: .utf8) == Self.payload)
                #expect(Self.entries(folder) == ["file.bin"])
                #expect(
                    try FileManager.default.attributesOfItem(atPath: destination.url.path)[.posixPermissions]
                        as? Int == 0o600)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func limitsHoldOnAnnouncedAndOnDecodedLengths(kind: TransportKind) async throws {
        try await Self.withFolder { folder in
            try await withMockServer { server async throws in
                let destination = DownloadTarget(folder.appendingPathComponent("big.bin"))
                // Announced: refused at the head.
                await expectTransportError(.bodyTooLarge, "\(kind) 2 MB against 1 MB") {
                    try await kind.transport.send(
                        request(server, "/bytes/2000000"),
                        options: .init(destination: destination, maxDownloadSize: 1_000_000))
                }
                // Decoded: 64 MiB of zeros in a small gzip body, stopped at the limit.
                await expectTransportError(.bodyTooLarge, "\(kind) gzip bomb to disk") {
                    try await kind.transport.send(
                        request(server, "/gzip-bomb/67108864"),
                        options: .init(destination: destination, maxDownloadSize: 1_000_000))
                }
                await expectTransportError(.bodyTooLarge, "\(kind) gzip bomb in memory") {
                    try await kind.transport.send(
                        request(server, "/gzip-bomb/67108864"), options: .init(maxBodySize: 1_000_000))
                }
                #expect(Self.entries(folder).isEmpty, "left behind: \(Self.entries(folder))")
            }
        }
    }

    /// Through `APIClient`: a download answered 404, then one answered 503 and
    /// retried, never reach the destination; the first's page is in the
    /// error, the second lands once.
    @Test(arguments: TransportKind.allCases)
    func failedResponsesNeverReachTheDestination(kind: TransportKind) async throws {
        let json = #"""
            {"id": "flaky", "request": {"urlPath": "/flaky"},
             "responses": [{"status": 503, "body": "busy"}, {"body": "\#(Self.payload)"}]}
            """#
        let stubs = try ContractLoader.parse(Array(json.utf8), file: "<test>")
        try await Self.withFolder { folder in
            try await withMockServer(.init(stubs: stubs)) { server async throws in
                let before = Self.foundationTemporaryFiles()
                let node = Node("mock", baseURL: server.baseURL)
                let client = APIClient(
                    configuration: .init(
                        transport: kind.transport, retryPolicy: .retryIfFailed(maxAttempts: 2),
                        timeout: hangGuard))
                let missing = DownloadDestination(folder.appendingPathComponent("missing.bin"))
                do {
                    _ = try await client.send(.download(.get("status/404"), on: node, to: missing))
                    Issue.record("\(kind): a 404 download succeeded")
                } catch let error as CourierError {
                    #expect(error.code == .status, "\(kind): \(error)")
                    #expect(error.response?.body.bytes != nil, "\(kind): the page is in memory")
                }
                #expect(Self.entries(folder).isEmpty, "\(kind) left behind: \(Self.entries(folder))")

                let flaky = DownloadDestination(folder.appendingPathComponent("flaky.bin"))
                let file = try await client.send(.download(.get("flaky"), on: node, to: flaky))
                #expect(try String(contentsOf: file.url, encoding: .utf8) == Self.payload)
                #expect(Self.entries(folder) == ["flaky.bin"])
                #expect(Self.foundationTemporaryFiles().subtracting(before).isEmpty)
            }
        }
    }

    /// A bomb in the body of a redirect is stopped at the limit like any
    /// other body: a transport returns a 3xx as it is (the client follows
    /// it), so its body is read by the same code. CourierCurl only: FoundationNetworking reads a redirect's
    /// whole body into memory before it tells its delegate anything, so
    /// URLSessionTransport cannot bound it (its documentation says so).
    @Test func aBombInARedirectBodyIsStoppedAtTheLimit() async throws {
        guard TransportKind.allCases.contains(.curl) else { return }
        try await withMockServer { server async throws in
            await expectTransportError(.bodyTooLarge, "curl: a gzip bomb in a 302") {
                try await TransportKind.curl.transport.send(
                    request(server, "/gzip-bomb/67108864?status=302"), options: .init(maxBodySize: 1_000_000))
            }
            #expect(server.journal.entries.map(\.request.path) == ["/gzip-bomb/67108864"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aFileInTheWayIsKeptUnlessReplacingIsAllowed(kind: TransportKind) async throws {
        try await Self.withFolder { folder in
            try await withMockServer { server async throws in
                let url = folder.appendingPathComponent("report.json")
                try Data("mine".utf8).write(to: url)
                await expectTransportError(.fileSystem, "\(kind) file in the way") {
                    try await kind.transport.send(
                        request(server, "/bytes/1000"), options: .init(destination: DownloadTarget(url)))
                }
                #expect(try String(contentsOf: url, encoding: .utf8) == "mine")
                #expect(Self.entries(folder) == ["report.json"])
                _ = try await kind.transport.send(
                    request(server, "/bytes/1000"),
                    options: .init(destination: DownloadTarget(url, options: [.removePreviousFile])))
                #expect(try Data(contentsOf: url).count == 1000)
                #expect(Self.entries(folder) == ["report.json"])
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aCancelledDownloadLeavesNothing(kind: TransportKind) async throws {
        let json = #"""
            {"id": "slow", "request": {"urlPath": "/slow-dl"},
             "response": {"body": "\#(Self.payload)", "fault": {"name": "stallMidBody", "afterBytes": 2000}}}
            """#
        let stubs = try ContractLoader.parse(Array(json.utf8), file: "<test>")
        try await Self.withFolder { folder in
            try await withMockServer(.init(stubs: stubs)) { server async throws in
                let destination = DownloadTarget(folder.appendingPathComponent("partial.bin"))
                let (started, arrived) = AsyncStream.makeStream(of: Void.self)
                let pending = Task {
                    try await kind.transport.send(
                        request(server, "/slow-dl"),
                        options: .init(
                            destination: destination,
                            progress: { event in
                                if event.direction == .download, event.completed > 0 { arrived.yield() }
                            }))
                }
                for await _ in started { break }
                pending.cancel()
                await expectTransportError(.cancelled, "\(kind) cancelled download") {
                    try await pending.value
                }
                #expect(Self.entries(folder).isEmpty, "left behind: \(Self.entries(folder))")
            }
        }
    }

    /// A body that claims a coding it does not have is a protocol error, not
    /// `.other`, on every transport.
    @Test(arguments: TransportKind.allCases)
    func aBrokenContentCodingIsAProtocolError(kind: TransportKind) async throws {
        let json = #"""
            {"id": "bad-gzip", "request": {"urlPath": "/bad-gzip"},
             "response": {"headers": {"Content-Encoding": "gzip"}, "body": "this is not gzip at all"}}
            """#
        let stubs = try ContractLoader.parse(Array(json.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            await expectTransportError(.protocolError, "\(kind) broken gzip") {
                try await kind.transport.send(
                    request(server, "/bad-gzip"), options: .guarded)
            }
        }
    }
}
