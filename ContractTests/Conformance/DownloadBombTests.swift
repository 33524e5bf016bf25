import CourierCore
import CourierMockServer
import CourierTransfers
import Foundation
import Testing

/// A decompression bomb downloaded with a client's default settings — no
/// size limit set — stops once the file expands past
/// `maxDownloadExpansion` (200 decoded bytes per coded byte, past the first
/// MiB) and leaves nothing: not the destination, not the staging file, not
/// a partial kept to resume from. A file that compresses well but honestly
/// lands whole, and the bound can be lifted.
struct DownloadBombTests {
    /// 64 MiB of zeros in 64 KB of gzip, in 53 bytes of br and in 2 KB of
    /// zstd (`BrotliAndZstdTests.stubs`).
    static let bombs = ["gzip-bomb/67108864", "br-bomb", "zstd-bomb"]

    static func client(_ kind: TransportKind, expansion: Int? = 200) -> APIClient {
        var configuration = APIClient.Configuration(transport: kind.transport, timeout: hangGuard)
        configuration.maxDownloadExpansion = expansion
        return APIClient(configuration: configuration)
    }

    static func size(_ file: DownloadedFile) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: file.url.path)[.size] as? Int
    }

    static func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bombs-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    @Test(arguments: TransportKind.allCases)
    func aBombStopsWithDefaultSettingsAndLeavesNothing(kind: TransportKind) async throws {
        let stubs = try ContractLoader.parse(Array(BrotliAndZstdTests.stubs.utf8), file: "<test>")
        try await Self.withFolder { folder in
            try await withMockServer(.init(stubs: stubs)) { server async throws in
                let node = Node("mock", baseURL: server.baseURL)
                // The client's defaults: only the bound on expansion.
                let client = APIClient(configuration: .init(transport: kind.transport, timeout: hangGuard))
                for path in Self.bombs {
                    let destination = DownloadDestination(
                        folder.appendingPathComponent("bomb.bin"), options: [.resumable])
                    let error = await #expect(throws: CourierError.self, "\(kind) \(path)") {
                        try await client.send(
                            Endpoint<DownloadedFile>.download(
                                .get(RoutePath(escaped: path)), on: node, to: destination))
                    }
                    let transportError = error?.underlying as? TransportError
                    #expect(
                        transportError?.code == .bodyTooLarge, "\(kind) \(path): \(String(describing: error))"
                    )
                    #expect(
                        transportError?.message.contains("decompression bomb") == true,
                        "\(kind) \(path): \(String(describing: transportError))")
                    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                    #expect(left.isEmpty, "\(kind) \(path) left behind: \(left)")
                }
            }
        }
    }

    /// 1 MiB of zeros in 1 KB of gzip is within the allowance; the same
    /// 64 MiB gzip bomb with the bound lifted (`nil`) lands whole.
    @Test(arguments: TransportKind.allCases)
    func compressibleFilesLandAndTheBoundCanBeLifted(kind: TransportKind) async throws {
        try await Self.withFolder { folder in
            try await withMockServer { server async throws in
                let node = Node("mock", baseURL: server.baseURL)
                let small = try await Self.client(kind).send(
                    Endpoint<DownloadedFile>.download(
                        .get("gzip-bomb/1048576"), on: node,
                        to: DownloadDestination(folder.appendingPathComponent("small.bin"))))
                #expect(try Self.size(small) == 1_048_576)
                let lifted = try await Self.client(kind, expansion: nil).send(
                    Endpoint<DownloadedFile>.download(
                        .get("gzip-bomb/67108864"), on: node,
                        to: DownloadDestination(folder.appendingPathComponent("lifted.bin"))))
                #expect(try Self.size(lifted) == 67_108_864)
            }
        }
    }
}
