import CourierCore
import CourierMockServer
import CourierTransfers
import Foundation
import Testing

/// Download progress has a total when the response says how long its body
/// is, over every transport, in memory and to a file: a progress bar's
/// fraction reaches 1 exactly at the end. A content-encoded body reports no
/// total (its length counts encoded bytes, progress the decoded ones).
struct ProgressTests {
    static let length: Int64 = 3 << 20

    /// Downloads are bounded by the hang guard too, not by the default 60 s
    /// of silence: every suite at once under ThreadSanitizer can keep a
    /// download's task waiting for a thread that long.
    private func client(_ kind: TransportKind) -> APIClient {
        var configuration = APIClient.Configuration(transport: kind.transport, timeout: hangGuard)
        configuration.downloadTimeouts = DownloadTimeouts(idle: hangGuard)
        return APIClient(configuration: configuration)
    }

    private func node(_ server: MockServer) -> Node {
        Node("mock", baseURL: "http://127.0.0.1:\(server.port)")
    }

    /// Every download event knows the total; the last one completes it.
    private func expectTotals(_ log: ProgressLog, _ what: String) {
        let downloads = log.values.filter { $0.direction == .download }
        #expect(!downloads.isEmpty, "\(what): no download progress")
        #expect(
            downloads.allSatisfy { $0.total == Self.length },
            "\(what): totals \(Set(downloads.map { $0.total.map(String.init) ?? "nil" }))")
        #expect(
            downloads.last?.completed == Self.length, "\(what): ended at \(downloads.last?.completed ?? -1)")
        #expect(downloads.last?.fraction == 1, "\(what): the last fraction \(downloads.last?.fraction ?? -1)")
        #expect(
            zip(downloads, downloads.dropFirst()).allSatisfy { $0.completed <= $1.completed },
            "\(what): progress went backwards")
    }

    @Test(arguments: TransportKind.allCases)
    func aBodyInMemoryHasItsTotal(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let log = ProgressLog()
            let response = try await client(kind).send(
                Endpoint<RawResponse>(.get("bytes/\(Self.length)"), on: node(server)),
                progress: { log.record($0) })
            #expect(Int64(response.body.bytes?.count ?? 0) == Self.length)
            expectTotals(log, "\(kind) in memory")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aDownloadToAFileHasItsTotal(kind: TransportKind) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID()).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        try await withMockServer { server async throws in
            let log = ProgressLog()
            let downloaded = try await client(kind).send(
                Endpoint<DownloadedFile>.download(
                    .get("bytes/\(Self.length)"), on: node(server), to: DownloadDestination(file)),
                progress: { log.record($0) })
            #expect(downloaded.url == file)
            expectTotals(log, "\(kind) to a file")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func anEncodedBodyHasNoTotal(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let log = ProgressLog()
            _ = try await client(kind).send(
                Endpoint<RawResponse>(.get("gzip"), on: node(server)), progress: { log.record($0) })
            let downloads = log.values.filter { $0.direction == .download }
            #expect(!downloads.isEmpty)
            #expect(downloads.allSatisfy { $0.total == nil }, "\(kind): \(downloads.map(\.total))")
        }
    }

    /// Progress as an `AsyncSequence`, read on the main actor: the values a
    /// progress bar shows, in order, with no lock and no `@Sendable` closure.
    @Test(arguments: TransportKind.allCases)
    func aTransferReportsProgressOnTheCallersActor(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let transfer = client(kind).transfer(
                Endpoint<RawResponse>(.get("bytes/\(Self.length)"), on: node(server)))
            let shown = await Self.show(transfer.progress)
            let response = try await transfer.value
            #expect(Int64(response.body.bytes?.count ?? 0) == Self.length)
            #expect(!shown.isEmpty, "\(kind): no progress")
            #expect(shown.allSatisfy { $0.total == Self.length }, "\(kind): a total missing")
            #expect(
                zip(shown, shown.dropFirst()).allSatisfy { $0.completed <= $1.completed },
                "\(kind): out of order")
            // The sequence ends after the last event: the bar reaches its end.
            #expect(shown.last?.fraction == 1, "\(kind): ended at \(shown.last?.fraction ?? -1)")
        }
    }

    /// What a progress bar on the main actor shows of `progress`.
    @MainActor
    static func show(_ progress: AsyncStream<TransferProgress>) async -> [TransferProgress] {
        var shown: [TransferProgress] = []
        for await event in progress where event.direction == .download {
            MainActor.assertIsolated()
            shown.append(event)
        }
        return shown
    }
}
