import CourierCore
import CourierMockServer
import CourierTesting
import CourierTransfers
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Pausing a transfer in flight against a real server, over every transport:
/// a paused download or upload moves no byte until it is resumed, then ends
/// with every byte (the server's checksum, or the pattern's), and a paused
/// transfer's idle timeout stands still. FoundationNetworking's URLSession
/// cannot pause (it restarts a suspended task from its first byte): there
/// the pause fails with `.pauseUnsupported` and the transfer runs on.
///
/// No assertion waits on the wall clock. The pause is asked for from the
/// first progress event, on the transport's own thread (a prepared call's
/// progress handler), so the transfer is in flight whatever the machine's
/// load; "no byte moved" is read once the pause is surely applied (two whole
/// calls through the same transport later) and again after a call the
/// server holds for a while, and the idle timeout runs on a `TestClock`.
@Suite(.serialized)
struct PauseTests {
    /// Smaller under ThreadSanitizer, where every byte copied is instrumented.
    /// Big enough that neither transfer can end before its pause applies:
    /// libcurl reads at most about 1.6 MB and sends one 64 KiB buffer per
    /// turn of its loop.
    static let size = (32 << 20) / LargeTransferTests.scale
    static let uploadSize = (8 << 20) / LargeTransferTests.scale

    static let stubs = #"""
        {"mappings": [
          {"id": "quiet-mid-body", "request": {"urlPath": "/quiet-mid-body"},
           "response": {"body": "\#(String(repeating: "x", count: 4000))",
             "fault": {"name": "stallMidBody", "afterBytes": 1000}}}
        ]}
        """#

    /// The server, a client of `kind` on it, and a folder for files.
    func withClient(
        _ kind: TransportKind, clock: any CourierClock = SystemClock(),
        _ body: (APIClient, Node, URL) async throws -> Void
    ) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pause-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = MockServer.Configuration(stubs: stubs, maxRequestBodySize: Self.size + 1024)
        try await withMockServer(configuration) { server async throws in
            var settings = APIClient.Configuration(
                transport: kind.transport, timeout: hangGuard, clock: clock)
            settings.downloadTimeouts = DownloadTimeouts(idle: hangGuard)
            let client = APIClient(configuration: settings)
            try await body(client, Node("mock", baseURL: server.baseURL), folder)
        }
    }

    /// A prepared call that pauses itself from its first progress event
    /// going `direction`, and tells the test it did.
    final class SelfPausingCall<Response: Sendable>: Sendable {
        let log: ProgressLog
        let call: NIOLockedValueBox<PreparedCall?>
        let pauseError: NIOLockedValueBox<CourierError?>
        let result: NIOLockedValueBox<Result<Response, CourierError>?>
        let paused: AsyncStream<Void>
        let ended: AsyncStream<Void>

        init(_ client: APIClient, _ endpoint: Endpoint<Response>, direction: TransferProgress.Direction) {
            let (paused, pausedSink) = AsyncStream.makeStream(of: Void.self)
            let (ended, endedSink) = AsyncStream.makeStream(of: Void.self)
            let log = ProgressLog()
            let call = NIOLockedValueBox<PreparedCall?>(nil)
            let pauseError = NIOLockedValueBox<CourierError?>(nil)
            let result = NIOLockedValueBox<Result<Response, CourierError>?>(nil)
            let first = NIOLockedValueBox(true)
            let prepared = client.prepare(
                endpoint,
                progress: { progress in
                    log.record(progress)
                    guard progress.direction == direction, progress.completed > 0,
                        first.withLockedValue({ isFirst in
                            defer { isFirst = false }
                            return isFirst
                        })
                    else { return }
                    do throws(CourierError) {
                        try call.withLockedValue { $0 }?.pause()
                    } catch {
                        pauseError.withLockedValue { $0 = error }
                    }
                    pausedSink.yield()
                },
                completion: { outcome in
                    result.withLockedValue { $0 = outcome }
                    endedSink.yield()
                })
            call.withLockedValue { $0 = prepared }
            self.paused = paused
            self.ended = ended
            self.log = log
            self.call = call
            self.pauseError = pauseError
            self.result = result
        }

        /// Bytes moved so far in `direction`, as progress last said.
        func moved(_ direction: TransferProgress.Direction) -> Int64 {
            log.values.last { $0.direction == direction }?.completed ?? 0
        }
    }

    /// Two whole calls through the client's transport, after which the
    /// pause has been applied: CurlTransport applies it on its thread in
    /// order with them; async-http-client's exchange checks it before its
    /// next chunk.
    func twoCalls(_ client: APIClient, _ node: Node) async throws {
        for _ in 0..<2 { _ = try await client.send(Endpoint<RawResponse>(.get("bytes/16"), on: node)) }
    }

    /// A call the server answers after 300 ms: the time in which a transfer
    /// that did not pause would move megabytes. A paused one moves nothing
    /// however long it lasts, so a loaded machine cannot fail the test; it
    /// can only make a transport that does not pause harder to catch.
    func window(_ client: APIClient, _ node: Node) async throws {
        _ = try await client.send(Endpoint<RawResponse>(.get("delay/300"), on: node))
    }

    /// Starts `call`, which pauses itself; checks that nothing moves while
    /// it is paused (or, on FoundationNetworking, that the pause was
    /// refused), resumes it and waits for its end.
    func pauseAndResume<Response>(
        _ call: SelfPausingCall<Response>, _ direction: TransferProgress.Direction, of size: Int,
        _ kind: TransportKind, _ client: APIClient, _ node: Node
    ) async throws {
        try #require(call.call.withLockedValue { $0 }).resume()
        await call.paused.first { _ in true }
        if kind == .urlSession {
            #expect(call.pauseError.withLockedValue { $0 }?.code == .pauseUnsupported)
        } else {
            #expect(call.pauseError.withLockedValue { $0 } == nil)
            try await twoCalls(client, node)
            let held = call.moved(direction)
            try await window(client, node)
            #expect(call.moved(direction) == held, "\(kind): bytes moved while paused")
            #expect(held < Int64(size), "\(kind): the transfer ended while paused")
            #expect(call.result.withLockedValue { $0 } == nil)
            try #require(call.call.withLockedValue { $0 }).resume()
        }
        await call.ended.first { _ in true }
    }

    @Test(arguments: TransportKind.allCases)
    func aPausedDownloadMovesNothingAndResumesWithEveryByte(kind: TransportKind) async throws {
        try await withClient(kind) { client, node, folder in
            let file = folder.appendingPathComponent("paused.bin")
            let download = SelfPausingCall(
                client, .download(.get("bytes/\(Self.size)"), on: node, to: DownloadDestination(file)),
                direction: .download)
            try await pauseAndResume(download, .download, of: Self.size, kind, client, node)
            let downloaded = try #require(download.result.withLockedValue { $0 }).get()
            #expect(downloaded.url == file)
            #expect(
                try LargeTransferTests.sha256(of: file) == LargeTransferTests.patternDigest(count: Self.size))
            let steps = download.log.values.filter { $0.direction == .download }.map(\.completed)
            #expect(steps == steps.sorted() && steps.last == Int64(Self.size), "\(kind)")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aPausedUploadMovesNothingAndResumesWithEveryByte(kind: TransportKind) async throws {
        try await withClient(kind) { client, node, _ in
            let body = (0..<Self.uploadSize).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 12) }
            var hasher = SHA256Digest()
            hasher.update(body)
            let digest = hasher.finalizeHex()
            let upload = SelfPausingCall(
                client,
                Endpoint<RawResponse>(
                    .put("upload"), on: node, content: .raw(body, contentType: "application/octet-stream")),
                direction: .upload)
            try await pauseAndResume(upload, .upload, of: Self.uploadSize, kind, client, node)
            let response = try #require(upload.result.withLockedValue { $0 }).get()
            let echo =
                try JSONSerialization.jsonObject(with: Data(response.body.bytes ?? [])) as? [String: Any]
            #expect(echo?["bytes"] as? Int == Self.uploadSize, "\(kind)")
            #expect(echo?["sha256"] as? String == digest, "\(kind)")
        }
    }

    /// The server sends a quarter of the body and goes quiet. Paused, the
    /// transfer outlasts twelve idle limits of that quiet on the test's
    /// clock; resumed, the limit counts again from the resume and ends it.
    @Test(arguments: TransportKind.allCases)
    func aPausedTransfersIdleTimeoutStandsStill(kind: TransportKind) async throws {
        let clock = TestClock(mode: .manual)
        try await withClient(kind, clock: clock) { client, node, folder in
            var endpoint = Endpoint<DownloadedFile>.download(
                .get("quiet-mid-body"), on: node, to: DownloadDestination(folder.appendingPathComponent("q")))
            endpoint.spec.idleTimeout = .seconds(10)
            let transfer = client.transfer(endpoint)
            for await event in transfer.progress where event.direction == .download && event.completed > 0 {
                break
            }
            await clock.waitForSleepers(1)  // the idle watch
            guard kind != .urlSession else {
                #expect(throws: CourierError.self) { try transfer.pause() }
                transfer.cancel()
                _ = try? await transfer.value
                return
            }
            try transfer.pause()
            // The watch wakes, sees the pause and sleeps again — unless it
            // ended the transfer.
            let (outcomes, sink) = AsyncStream.makeStream(of: String.self)
            let ended = Task {
                _ = try? await transfer.value
                sink.yield("the transfer ended")
            }
            let slept = clock.sleeps.count
            clock.advance(by: .seconds(120))
            let watching = Task {
                await clock.waitForSleeps(slept + 1)
                sink.yield("the watch slept again")
            }
            #expect(await outcomes.first { _ in true } == "the watch slept again", "\(kind)")
            watching.cancel()
            transfer.resume()
            clock.advance(by: .seconds(120))
            do throws(CourierError) {
                _ = try await transfer.value
                Issue.record("\(kind): the quiet after the resume did not end the transfer")
            } catch {
                #expect(error.code == .timedOut, "\(kind): \(error)")
                #expect("\(error)".contains("idle timeout"), "\(error)")
            }
            await ended.value
        }
    }
}
