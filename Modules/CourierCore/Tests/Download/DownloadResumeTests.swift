@_spi(Locking) @_spi(Transport) import CourierCore
import CourierTestSupport
import CourierTesting
import CourierTransfers
import Foundation
import HTTPTypes
import Testing

/// The edges of resuming that a real server rarely shows: a 416, a 206 that
/// does not continue the kept bytes, a transfer that fails again halfway
/// through a continuation, and kept bytes of another URL.
struct DownloadResumeTests {
    /// Writes each scripted answer through `PartialDownload`, as transports
    /// do; a `cut` answer writes its bytes and then fails like a reset.
    final class ScriptedDownloads: Transport {
        struct Answer: Sendable {
            var status: Int
            var fields: [(HTTPField.Name, String)]
            var bytes: [UInt8]
            var cut = false
        }

        private let answers: Locked<[Answer]>
        let ranges = Locked<[String?]>([])

        init(_ answers: [Answer]) { self.answers = Locked(answers) }

        func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
            ranges.withLock { $0.append(request.head.headerFields[.range]) }
            let answer = answers.withLock { $0.removeFirst() }
            guard let destination = options.destination else {
                throw TransportError(.other, "not a download")
            }
            let head = HTTPResponse(
                status: .init(code: answer.status),
                headerFields: HTTPFields(answer.fields.map { HTTPField(name: $0.0, value: $0.1) }))
            let download = try PartialDownload(destination)
            download.head = head
            try download.write(answer.bytes)
            if answer.cut {
                download.discard()
                throw TransportError(.connectionReset, "cut after \(answer.bytes.count) bytes")
            }
            return RawResponse(head: head, body: .file(try download.commit(expectedLength: nil)))
        }
    }

    static func bytes(_ byte: Character, _ count: Int) -> [UInt8] {
        [UInt8](repeating: byte.asciiValue ?? 0, count: count)
    }

    func run(
        _ answers: [ScriptedDownloads.Answer], calls: Int, path: [String]? = nil
    ) async throws -> (file: DownloadedFile?, ranges: [String?], contents: [UInt8], folder: [String]) {
        let directory = try TemporaryDirectory()
        let destination = DownloadDestination(
            directory.url.appendingPathComponent("f.bin"),
            options: [.createIntermediateDirectories, .resumable])
        let transport = ScriptedDownloads(answers)
        let client = makeClient(transport)
        var file: DownloadedFile?
        for index in 0..<calls {
            let route = RoutePath(stringLiteral: path?[index] ?? "f")
            file = try? await client.send(.download(.get(route), on: .api, to: destination))
        }
        let contents = file.map { (try? Data(contentsOf: $0.url)).map(Array.init) ?? [] } ?? []
        let folder = ((try? FileManager.default.contentsOfDirectory(atPath: directory.url.path)) ?? [])
            .sorted()
        return (file, transport.ranges.withLock { $0 }, contents, folder)
    }

    @Test func a416DropsTheKeptBytesAndAsksForTheWholeFile() async throws {
        let result = try await run(
            [
                .init(status: 200, fields: [(.eTag, "\"v1\"")], bytes: Self.bytes("a", 100), cut: true),
                .init(status: 416, fields: [(.contentRange, "bytes */50")], bytes: []),
                .init(status: 200, fields: [(.eTag, "\"v2\"")], bytes: Self.bytes("b", 50)),
            ], calls: 2)
        #expect(result.ranges == [nil, "bytes=100-", nil])
        #expect(result.contents == Self.bytes("b", 50))
        #expect(result.file?.resumedFrom == 0)
        #expect(result.folder == ["f.bin"])
    }

    @Test func a206ThatDoesNotContinueTheKeptBytesStartsOver() async throws {
        let result = try await run(
            [
                .init(status: 200, fields: [(.eTag, "\"v1\"")], bytes: Self.bytes("a", 100), cut: true),
                .init(
                    status: 206, fields: [(.eTag, "\"v1\""), (.contentRange, "bytes 50-99/200")],
                    bytes: Self.bytes("x", 50)),
                .init(status: 200, fields: [(.eTag, "\"v1\"")], bytes: Self.bytes("c", 200)),
            ], calls: 2)
        #expect(result.ranges == [nil, "bytes=100-", nil])
        #expect(result.contents == Self.bytes("c", 200))
    }

    @Test func aContinuationCutAgainIsKeptAndContinuedOnceMore() async throws {
        let result = try await run(
            [
                .init(status: 200, fields: [(.eTag, "\"v1\"")], bytes: Self.bytes("a", 100), cut: true),
                .init(
                    status: 206, fields: [(.eTag, "\"v1\""), (.contentRange, "bytes 100-299/300")],
                    bytes: Self.bytes("b", 100), cut: true),
                .init(
                    status: 206, fields: [(.eTag, "\"v1\""), (.contentRange, "bytes 200-299/300")],
                    bytes: Self.bytes("c", 100)),
            ], calls: 3)
        #expect(result.ranges == [nil, "bytes=100-", "bytes=200-"])
        #expect(result.contents == Self.bytes("a", 100) + Self.bytes("b", 100) + Self.bytes("c", 100))
        #expect(result.file?.statusCode == 206 && result.file?.resumedFrom == 200)
        #expect(result.folder == ["f.bin"])
    }

    @Test func bytesWithoutAValidatorOrOfAnotherURLAreNeverContinued() async throws {
        // No ETag and no Last-Modified: nothing to ask If-Range with, so nothing is kept.
        let unvalidated = try await run(
            [
                .init(status: 200, fields: [], bytes: Self.bytes("a", 100), cut: true),
                .init(status: 200, fields: [], bytes: Self.bytes("b", 10)),
            ], calls: 2)
        #expect(unvalidated.ranges == [nil, nil])
        // Gzipped bytes: offsets would not count what was sent, so nothing is kept.
        let coded = try await run(
            [
                .init(
                    status: 200, fields: [(.eTag, "\"v1\""), (.contentEncoding, "gzip")],
                    bytes: Self.bytes("a", 100), cut: true),
                .init(status: 200, fields: [], bytes: Self.bytes("b", 10)),
            ], calls: 2)
        #expect(coded.ranges == [nil, nil])
        // Kept for one URL, then a call for another URL to the same file.
        let other = try await run(
            [
                .init(status: 200, fields: [(.eTag, "\"v1\"")], bytes: Self.bytes("a", 100), cut: true),
                .init(status: 200, fields: [(.eTag, "\"v9\"")], bytes: Self.bytes("z", 10)),
            ], calls: 2, path: ["one", "two"])
        #expect(other.ranges == [nil, nil])
        #expect(other.contents == Self.bytes("z", 10))
        #expect(other.folder == ["f.bin"])
    }
}
