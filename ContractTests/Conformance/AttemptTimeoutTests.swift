import CourierCore
import CourierMockServer
import CourierTransfers
import Foundation
import Testing

/// The three bounds of an attempt against a real server, over every
/// transport: a download that takes longer than an ordinary call's total
/// arrives whole, because bytes keep coming; a server that goes quiet mid-body
/// or never answers meets the idle timeout, and the error says which bound
/// ended it.
///
/// No assertion waits on the wall clock: the trickle takes at least three
/// seconds however loaded the machine (the server paces it), so a one-second
/// total always fails — even when a loaded pool starts the transport's timer
/// late, because the end is checked again when the response is complete —
/// and a sixty-second idle never does; a stall never ends, so a one-second
/// idle always fires.
struct AttemptTimeoutTests {
    static let bodySize = 24_000

    static let stubs = #"""
        {"mappings": [
          {"id": "trickle", "request": {"urlPath": "/trickle"},
           "response": {"body": "\#(String(repeating: "0123456789", count: bodySize / 10))",
             "fault": {"name": "throttleBody", "bytes": 2000, "perMs": 250}}},
          {"id": "quiet-mid-body", "request": {"urlPath": "/quiet-mid-body"},
           "response": {"body": "\#(String(repeating: "x", count: 4000))",
             "fault": {"name": "stallMidBody", "afterBytes": 1000}}},
          {"id": "never-answers", "request": {"urlPath": "/never-answers"},
           "response": {"status": 200, "fault": "stall"}}
        ]}
        """#

    func withClient(
        _ kind: TransportKind, total: Duration, downloads: DownloadTimeouts, idle: Duration? = nil,
        _ body: (APIClient, Node, URL) async throws -> Void
    ) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timeouts-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            var configuration = APIClient.Configuration(
                transport: kind.transport, timeout: total, idleTimeout: idle)
            configuration.downloadTimeouts = downloads
            let client = APIClient(configuration: configuration)
            try await body(client, Node("mock", baseURL: server.baseURL), folder)
        }
    }

    /// The error a call ended with, which must be a timeout.
    func timeout(_ call: () async throws -> Void) async -> TransportError? {
        do {
            try await call()
            Issue.record("the call did not time out")
            return nil
        } catch let error as CourierError {
            #expect(error.code == .timedOut, "\(error)")
            return error.underlying as? TransportError
        } catch {
            Issue.record("not a CourierError: \(error)")
            return nil
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aDownloadOutlastsTheTotalAnOrdinaryCallHas(kind: TransportKind) async throws {
        try await withClient(kind, total: .seconds(1), downloads: DownloadTimeouts(idle: hangGuard)) {
            client, node, folder in
            // The same answer as an ordinary call: its 1 s total cuts it off.
            let cut = await timeout {
                _ = try await client.send(Endpoint<RawResponse>(.get("trickle"), on: node))
            }
            #expect(cut?.message.contains("idle") == false, "\(String(describing: cut))")
            // As a download it has no total, only an idle bound it never meets.
            let destination = folder.appendingPathComponent("trickled.txt")
            let file = try await client.send(
                .download(.get("trickle"), on: node, to: DownloadDestination(destination)))
            #expect(file.url == destination)
            #expect(try Data(contentsOf: destination).count == Self.bodySize)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aDownloadThatGoesQuietMeetsTheIdleTimeout(kind: TransportKind) async throws {
        try await withClient(kind, total: hangGuard, downloads: DownloadTimeouts(idle: .seconds(1))) {
            client, node, folder in
            let destination = folder.appendingPathComponent("quiet.txt")
            let error = await timeout {
                _ = try await client.send(
                    .download(.get("quiet-mid-body"), on: node, to: DownloadDestination(destination)))
            }
            #expect(error?.message.contains("idle timeout") == true, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aServerThatNeverAnswersMeetsTheIdleTimeout(kind: TransportKind) async throws {
        try await withClient(kind, total: hangGuard, downloads: DownloadTimeouts(), idle: .seconds(1)) {
            client, node, _ in
            let error = await timeout {
                _ = try await client.send(Endpoint<RawResponse>(.get("never-answers"), on: node))
            }
            #expect(error?.message.contains("idle timeout") == true, "\(String(describing: error))")
        }
    }

    /// A call that waits longer than its own total fails with
    /// ``CourierError/Code/timedOut`` (the total's, not the idle bound's
    /// message) on every transport: the client's total, and an endpoint's
    /// own that is shorter than the client's. The server never answers, so
    /// the one second always passes.
    @Test(arguments: TransportKind.allCases)
    func aCallWaitingLongerThanItsTimeoutFailsAsTimedOut(kind: TransportKind) async throws {
        try await withClient(kind, total: .seconds(1), downloads: DownloadTimeouts()) { client, node, _ in
            let error = await timeout {
                _ = try await client.send(Endpoint<RawResponse>(.get("never-answers"), on: node))
            }
            #expect(error?.message.contains("idle") == false, "\(String(describing: error))")
        }
        try await withClient(kind, total: hangGuard, downloads: DownloadTimeouts()) { client, node, _ in
            var endpoint = Endpoint<RawResponse>(.get("never-answers"), on: node)
            endpoint.spec.timeout = .seconds(1)
            let error = await timeout { _ = try await client.send(endpoint) }
            #expect(error?.message.contains("idle") == false, "\(String(describing: error))")
        }
    }
}
