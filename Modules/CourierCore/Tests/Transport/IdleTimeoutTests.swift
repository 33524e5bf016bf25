@_spi(Locking) @_spi(Transport) import CourierCore
import CourierTestSupport
import CourierTesting
import CourierTransfers
import Foundation
import Testing

/// The three bounds of an attempt: the idle watch (driven by `TestClock`,
/// no wall clock), and which bounds the pipeline hands a transport for an
/// ordinary call and for a download.
struct IdleTimeoutTests {
    /// Runs `watchdog.expiry()` and reports when and how it ended.
    final class Expiry: Sendable {
        final class Outcome: Sendable {
            let value = Locked<(at: Duration, error: any Error)?>(nil)
        }
        private let outcome: Outcome
        let task: Task<Void, Never>

        init(_ watchdog: IdleWatchdog, clock: TestClock) {
            let outcome = Outcome()
            self.outcome = outcome
            task = Task {
                do {
                    try await watchdog.expiry()
                } catch {
                    outcome.value.withLock { $0 = (clock.now, error) }
                }
            }
        }

        var ended: (at: Duration, error: any Error)? { outcome.value.withLock { $0 } }
    }

    @Test func quietForTheLimitIsATimeoutAtTheLimit() async throws {
        let clock = TestClock(mode: .manual)
        let watchdog = IdleWatchdog(limit: .seconds(10), clock: clock)
        let expiry = Expiry(watchdog, clock: clock)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(9))
        #expect(expiry.ended == nil)
        clock.advance(by: .seconds(1))
        await expiry.task.value
        #expect(expiry.ended?.at == .seconds(10))
        let error = try #require(expiry.ended?.error as? TransportError)
        #expect(error.code == .timedOut)
        #expect(error.message.contains("idle timeout"))
    }

    @Test func everyByteStartsTheQuietAgain() async throws {
        let clock = TestClock(mode: .manual)
        let watchdog = IdleWatchdog(limit: .seconds(10), clock: clock)
        let expiry = Expiry(watchdog, clock: clock)
        // Bytes every 6 s for a minute: never 10 s of quiet, six times the limit in all.
        for _ in 0..<10 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(6))
            watchdog.touch()
        }
        #expect(expiry.ended == nil)
        // Then silence: the timeout falls 10 s after the last byte, not at a multiple of the limit.
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        await clock.waitForSleepers(1)
        #expect(expiry.ended == nil)
        clock.advance(by: .seconds(6))
        await expiry.task.value
        #expect(expiry.ended?.at == .seconds(70))
        #expect((expiry.ended?.error as? TransportError)?.code == .timedOut)
    }

    @Test func anExchangeThatEndsFirstCancelsTheWatch() async {
        let clock = TestClock(mode: .manual)
        let expiry = Expiry(IdleWatchdog(limit: .seconds(10), clock: clock), clock: clock)
        await clock.waitForSleepers(1)
        expiry.task.cancel()
        await expiry.task.value
        #expect(expiry.ended?.error is CancellationError)
    }

    /// Records the options of every exchange, and answers 200.
    final class OptionsRecorder: Transport {
        private let options = Locked<[TransportOptions]>([])
        var seen: [TransportOptions] { options.withLock { $0 } }
        let stub = StubTransport.immediate(.response(status: 200, body: Array("ok".utf8)))

        func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
            self.options.withLock { $0.append(options) }
            return try await stub.send(request, options: options)
        }
    }

    @Test func anOrdinaryCallHasATotalAndADownloadOnlyAnIdleTimeout() async throws {
        let transport = OptionsRecorder()
        let directory = try TemporaryDirectory()
        let client = APIClient(
            configuration: .init(transport: transport, clock: TestClock(), connectTimeout: .seconds(3)))
        _ = try await client.send(Endpoint<RawResponse>(.get("call"), on: .api))
        _ = try await client.send(
            .download(
                .get("file"), on: .api, to: DownloadDestination(directory.url.appendingPathComponent("f"))))
        let seen = transport.seen
        #expect(seen.map(\.timeout) == [.seconds(60), nil])
        #expect(seen.map(\.idleTimeout) == [nil, .seconds(60)])
        #expect(seen.map(\.connectTimeout) == [.seconds(3), .seconds(3)])
    }

    @Test func anEndpointsOwnBoundsReplaceTheClients() async throws {
        let transport = OptionsRecorder()
        let directory = try TemporaryDirectory()
        var configuration = APIClient.Configuration(
            transport: transport, timeout: .seconds(20), clock: TestClock(), idleTimeout: .seconds(5))
        configuration.downloadTimeouts = DownloadTimeouts(idle: .seconds(30), total: .seconds(3600))
        let client = APIClient(configuration: configuration)
        var call = Endpoint<RawResponse>(.get("call"), on: .api)
        _ = try await client.send(call)
        call.idleTimeout = .seconds(2)
        call.timeout = .seconds(8)
        _ = try await client.send(call)
        var download = Endpoint<DownloadedFile>.download(
            .get("file"), on: .api, to: DownloadDestination(directory.url.appendingPathComponent("f")))
        _ = try await client.send(download)
        download.idleTimeout = .seconds(9)
        download.destination = DownloadDestination(directory.url.appendingPathComponent("g"))
        _ = try await client.send(download)
        let seen = transport.seen
        #expect(seen.map(\.timeout) == [.seconds(20), .seconds(8), .seconds(3600), .seconds(3600)])
        #expect(seen.map(\.idleTimeout) == [.seconds(5), .seconds(2), .seconds(30), .seconds(9)])
    }
}
