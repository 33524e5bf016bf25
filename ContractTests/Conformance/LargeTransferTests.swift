@_spi(Transport) import CourierCore
import CourierMockServer
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import Synchronization
import Testing

/// Big bodies through files, with checksums, bounded memory and complete
/// progress; cancellation and timeouts in the middle of a body. Serialized so
/// that one transfer's memory does not show in another's measurement.
@Suite(.serialized)
struct LargeTransferTests {
    /// The sanitizer the tests run under, if any (scripts/check-tsan and
    /// scripts/check-asan set COURIER_SANITIZER).
    static let sanitizer = ProcessInfo.processInfo.environment["COURIER_SANITIZER"]
    /// Under ThreadSanitizer the bodies are a sixteenth of their size (4 MiB
    /// up, 16 MiB down): every copy of a byte is instrumented there, and at a
    /// quarter these two tests were still the sanitizer run's longest path
    /// (114 s of its 114). Races need the same code paths (a thousand
    /// chunks, progress, the file), not 256 MiB; the full sizes and the
    /// memory bound run in the plain run (scripts/test's main lane).
    static let scale = sanitizer == "thread" ? 16 : 1
    static let uploadSize = (64 << 20) / scale
    static let downloadSize = (256 << 20) / scale
    /// How much the process may grow while the body streams to a file: a
    /// transport that buffered the body would grow by all of it. Under
    /// AddressSanitizer, freed memory sits in its quarantine, so the bound is
    /// the body itself.
    static let rssGrowthLimit = sanitizer == "address" ? 192 << 20 : 64 << 20

    @Test(arguments: TransportKind.allCases)
    func upload64MiBFromAFile(kind: TransportKind) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        let digest = try Self.writeUploadFile(file, size: Self.uploadSize)
        let progress = ProgressLog()
        let configuration = MockServer.Configuration(maxRequestBodySize: Self.uploadSize + 1024)
        try await withMockServer(configuration) { server async throws in
            let response = try await kind.transport.send(
                request(server, "/upload", method: .put, body: try RequestBody(file: file)),
                options: .init(progress: { progress.record($0) }))
            let echo =
                try JSONSerialization.jsonObject(with: Data(response.body.bytes ?? [])) as? [String: Any]
            #expect(echo?["bytes"] as? Int == Self.uploadSize)
            #expect(echo?["sha256"] as? String == digest)
        }
        let uploads = progress.values.filter { $0.direction == .upload }.map(\.completed)
        #expect(uploads == uploads.sorted())
        #expect(uploads.last == Int64(Self.uploadSize))
    }

    @Test(arguments: TransportKind.allCases)
    func download256MiBToAFileInBoundedMemory(kind: TransportKind) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = DownloadTarget(directory.appendingPathComponent("big.bin"))
        let progress = ProgressLog()
        let peak = NIOLockedValueBox<Int>(0)
        let sampledAt = NIOLockedValueBox<Int64>(0)
        let baseline = try Self.residentBytes()
        try await withMockServer { server async throws in
            let response = try await kind.transport.send(
                request(server, "/bytes/\(Self.downloadSize)"),
                options: .init(
                    destination: destination,
                    progress: { event in
                        progress.record(event)
                        // Sample memory every 8 MiB of the body.
                        let due = sampledAt.withLockedValue { last in
                            guard event.completed - last >= 8 << 20 else { return false }
                            last = event.completed
                            return true
                        }
                        if due, let rss = try? Self.residentBytes() {
                            peak.withLockedValue { $0 = max($0, rss) }
                        }
                    }))
            #expect(response.body == .file(destination.url))
            #expect(response.metrics.bytesReceived == Int64(Self.downloadSize))
        }
        let growth = peak.withLockedValue { $0 } - baseline
        #expect(growth < Self.rssGrowthLimit, "resident memory grew by \(growth >> 20) MiB")
        #expect(try Self.sha256(of: destination.url) == Self.patternDigest(count: Self.downloadSize))
        let downloads = progress.values.filter { $0.direction == .download }.map(\.completed)
        #expect(downloads == downloads.sorted())
        #expect(downloads.last == Int64(Self.downloadSize))
    }

    @Test(arguments: TransportKind.allCases)
    func cancellationInTheMiddleOfABody(kind: TransportKind) async throws {
        let stubs = try ContractLoader.parse(
            Array(
                #"{"id": "s", "request": {"urlPath": "/slow"}, "response": {"base64Body": "\#(Self.base64Body)", "fault": {"name": "stallMidBody", "afterBytes": 5000}}}"#
                    .utf8),
            file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let (firstBytes, arrived) = AsyncStream.makeStream(of: Void.self)
            let pending = Task {
                try await kind.transport.send(
                    request(server, "/slow"),
                    options: .init(progress: { event in
                        if event.direction == .download, event.completed > 0 { arrived.yield() }
                    }))
            }
            // Cancel once part of the body has arrived.
            for await _ in firstBytes { break }
            pending.cancel()
            await expectTransportError(.cancelled, "a cancelled transfer") { try await pending.value }
            // A body that stalls mid-way times out.
            await expectTransportError(.timedOut, "a stalled body") {
                try await kind.transport.send(
                    request(server, "/slow"), options: .init(timeout: .milliseconds(300)))
            }
            #expect(
                try await kind.transport.send(request(server, "/status/200"), options: .guarded).statusCode
                    == 200)
        }
    }

    // MARK: - Helpers

    static let base64Body = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0) }).base64EncodedString()

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("large-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Writes `size` bytes (a 1 MiB block, each copy stamped with its index)
    /// and returns their SHA-256.
    static func writeUploadFile(_ url: URL, size: Int) throws -> String {
        var block = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var hasher = SHA256Digest()
        for copy in 0..<(size >> 20) {
            withUnsafeBytes(of: UInt64(copy).littleEndian) { block.replaceSubrange(0..<8, with: $0) }
            hasher.update(block)
            try handle.write(contentsOf: block)
        }
        return hasher.finalizeHex()
    }

    /// The SHA-256 of the mock server's `/bytes/{n}` pattern, which repeats
    /// every 64 KiB.
    static func patternDigest(count: Int) -> String {
        let period = (0..<65_536).map { BuiltinPattern.byte($0) }
        var hasher = SHA256Digest()
        var remaining = count
        while remaining > 0 {
            let take = min(remaining, period.count)
            hasher.update(period[..<take])
            remaining -= take
        }
        return hasher.finalizeHex()
    }

    static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256Digest()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        return hasher.finalizeHex()
    }

    /// The process's resident set, from `/proc/self/statm`.
    static func residentBytes() throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { throw CocoaError(.fileReadCorruptFile) }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// The mock server's `/bytes/{n}` byte at an index, restated here so that the
/// test checks the server instead of trusting it.
enum BuiltinPattern {
    static func byte(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: index &* 31 &+ 7 &+ index >> 8) }
}
