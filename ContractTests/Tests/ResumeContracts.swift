import CourierCodable
import CourierCore
import CourierMockServer
import CourierTesting
import CourierTransfers
import Foundation
import Testing

/// `resume.json`: a resumable download interrupted mid-body keeps its bytes
/// and validators; the next call (or the next attempt) asks for the rest with
/// `Range` and `If-Range`, appends the 206, starts over on a 200 when the file
/// changed or the server ignores ranges — and the file is always right.
struct ResumeContracts {
    /// The bodies in `resume.json`: `a` for every URL but the changed file's second answer (`b`).
    static let a = Array((0..<3000).map { UInt8(ascii: "a") + UInt8($0 * 7 % 26) })
    static let b = Array((0..<2500).map { UInt8(ascii: "A") + UInt8($0 * 11 % 26) })

    struct Folder {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-resume-\(UUID())")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        func destination(_ name: String) -> DownloadDestination {
            DownloadDestination(
                url.appendingPathComponent(name), options: [.createIntermediateDirectories, .resumable])
        }
        /// The names in the folder, hidden ones included.
        var names: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
        }
        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    static func digest(_ url: URL) throws -> String { SHA256Digest.hex(of: Array(try Data(contentsOf: url))) }

    @Test(arguments: ContractTransport.allCases)
    func anInterruptedDownloadContinuesWhereItStopped(kind: ContractTransport) async throws {
        try await contract(
            "resume: a reset keeps the bytes; the next call asks for the rest and appends it", kind
        ) {
            try await ContractServer.with("resume.json") { server in
                let folder = try Folder()
                defer { folder.remove() }
                let client = makeClient(kind)
                let download = Endpoint<DownloadedFile>.download(
                    .get("resume/file"), on: server.node(envelope: nil), to: folder.destination("file.bin"))
                do {
                    _ = try await client.send(download)
                    check(false, "the interrupted download succeeded")
                } catch let error as CourierError {
                    check(error.code == .transport, "interrupted: \(error)")
                }
                check(
                    folder.names == [".file.bin.courier-resume", ".file.bin.courier-resume.json"],
                    "kept beside the destination, nothing at it: \(folder.names)")
                let record = try String(
                    contentsOf: folder.url.appendingPathComponent(".file.bin.courier-resume.json"),
                    encoding: .utf8)
                check(record.contains("v1"), "the validator is kept: \(record)")
                let file = try await client.send(download)
                check(file.statusCode == 206 && file.resumedFrom == 1200, "resumed: \(file)")
                check(
                    try Self.digest(file.url) == SHA256Digest.hex(of: Self.a), "the whole file, byte for byte"
                )
                check(folder.names == ["file.bin"], "nothing left behind: \(folder.names)")
                let journal = try await server.exchanges()
                journal.expectOrder(["resume-file", "resume-file"])
                let second = journal.all.last
                check(second?.header("Range") == "bytes=1200-", "Range: \(second?.header("Range") ?? "none")")
                check(
                    second?.header("If-Range") == #""v1""#,
                    "If-Range: \(second?.header("If-Range") ?? "none")")
                check(second?.status == 206, "status \(second?.status ?? 0)")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aRetryContinuesTheTransferInsteadOfStartingOver(kind: ContractTransport) async throws {
        try await contract("resume: within one call, the retry after a reset asks only for the rest", kind) {
            try await ContractServer.with("resume.json") { server in
                let folder = try Folder()
                defer { folder.remove() }
                let client = makeClient(kind, retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none))
                let reply = try await client.response(
                    Endpoint<DownloadedFile>.download(
                        .get("resume/dated"), on: server.node(envelope: nil),
                        to: folder.destination("dated.bin")))
                check(
                    reply.attempts == 2 && reply.model.resumedFrom == 2999,
                    "\(reply.attempts) attempts, \(reply.model)")
                check(try Self.digest(reply.model.url) == SHA256Digest.hex(of: Self.a), "the whole file")
                let last = try await server.exchanges().all.last
                check(
                    last?.header("If-Range") == "Wed, 21 Oct 2015 07:28:00 GMT",
                    "a date validator: \(String(describing: last?.header("If-Range")))")
                check(last?.header("Range") == "bytes=2999-", "the last byte only")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aChangedFileOrAServerWithoutRangesStartsOverCleanly(kind: ContractTransport) async throws {
        try await contract("resume: a changed validator or no range support gives the whole new file", kind) {
            try await ContractServer.with("resume.json") { server in
                let folder = try Folder()
                defer { folder.remove() }
                let client = makeClient(kind)
                for (path, name, expected) in [
                    ("resume/changed", "changed.bin", Self.b), ("resume/no-ranges", "plain.bin", Self.a),
                ] {
                    let download = Endpoint<DownloadedFile>.download(
                        .get(RoutePath(stringLiteral: path)), on: server.node(envelope: nil),
                        to: folder.destination(name))
                    _ = try? await client.send(download)
                    let file = try await client.send(download)
                    check(file.statusCode == 200 && file.resumedFrom == 0, "\(path): \(file)")
                    check(
                        try Self.digest(file.url) == SHA256Digest.hex(of: expected),
                        "\(path): the new file, whole")
                }
                check(folder.names == ["changed.bin", "plain.bin"], "no kept bytes left: \(folder.names)")
                let journal = try await server.exchanges()
                journal.expectCount("resume-changed", .exactly(2))
                journal.expectCount("resume-no-ranges", .exactly(2))
            }
        }
    }
}
