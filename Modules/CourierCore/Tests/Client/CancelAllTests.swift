@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import Synchronization
import Testing

/// `client.cancelAll()` ends every running call with `.cancelled`, exactly
/// once each, and nothing else.
struct CancelAllTests {
    /// A client whose transport waits 10 s on a manual test clock.
    static func slowClient(_ clock: TestClock, retryPolicy: RetryPolicy = .never) -> (
        APIClient, RecordingTransport
    ) {
        let recorder = RecordingTransport(
            StubTransport(latency: .seconds(10), clock: clock) { _ in .json("{}") })
        return (makeClient(recorder, retryPolicy: retryPolicy, clock: clock), recorder)
    }

    @Test func endsEveryRunningCallOnceWithCancelled() async throws {
        let clock = TestClock(mode: .manual)
        let (client, _) = Self.slowClient(clock)
        let endpoint = Endpoint<RawResponse>(.get("x"), on: .api)
        // Given three async calls and one with a completion handler, all waiting on the transport,
        let tasks = (0..<3).map { _ in Task { try await client.send(endpoint) } }
        let completions = Locked<[Result<RawResponse, CourierError>]>([])
        let handle = client.send(endpoint) { result in completions.withLock { $0.append(result) } }
        await clock.waitForSleepers(4)
        #expect(client.runningCalls == 4)
        // when the client cancels all,
        client.cancelAll()
        // then each ends with .cancelled, once.
        for task in tasks {
            let error = try #require(await task.result.failureValue as? CourierError)
            #expect(error.code == .cancelled)
        }
        await handle.wait()
        let delivered = completions.withLock { $0 }
        #expect(delivered.count == 1)
        #expect(delivered.first?.failureValue?.code == .cancelled)
        #expect(client.runningCalls == 0)
        #expect(clock.sleeperCount == 0)
    }

    @Test func theCallersOwnTaskIsNotCancelled() async throws {
        let clock = TestClock(mode: .manual)
        let (client, _) = Self.slowClient(clock)
        let caller = Task { () -> (CourierError.Code?, Bool) in
            do throws(CourierError) {
                _ = try await client.send(Endpoint<RawResponse>(.get("x"), on: .api))
                return (nil, Task.isCancelled)
            } catch {
                return (error.code, Task.isCancelled)
            }
        }
        await clock.waitForSleepers(1)
        client.cancelAll()
        let (code, callerCancelled) = await caller.value
        #expect(code == .cancelled)
        #expect(!callerCancelled)
    }

    @Test func aCallWaitingToRetryIsCancelledAndSendsNothingMore() async throws {
        let clock = TestClock(mode: .manual)
        let recorder = RecordingTransport(StubTransport.immediate(.status(503)))
        let client = makeClient(
            recorder,
            retryPolicy: RetryPolicy(maxAttempts: 5, backoff: .constant(.seconds(10)), jitter: .none),
            clock: clock)
        let task = Task { try await client.send(Endpoint<RawResponse>(.get("x"), on: .api)) }
        await clock.waitForSleepers(1)
        client.cancelAll()
        let error = try #require(await task.result.failureValue as? CourierError)
        #expect(error.code == .cancelled)
        #expect(error.attempt == 1)
        #expect(recorder.records.count == 1)
    }

    @Test func callsStartedAfterwardsRunNormally() async throws {
        let clock = TestClock(mode: .manual)
        let (client, _) = Self.slowClient(clock)
        let endpoint = Endpoint<RawResponse>(.get("x"), on: .api)
        client.cancelAll()
        let task = Task { try await client.send(endpoint) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(10))
        #expect(try await task.value.statusCode == 200)
    }

    @Test func otherClientsAreNotAffected() async throws {
        let clock = TestClock(mode: .manual)
        let (first, _) = Self.slowClient(clock)
        let (second, _) = Self.slowClient(clock)
        let endpoint = Endpoint<RawResponse>(.get("x"), on: .api)
        let cancelled = Task { try await first.send(endpoint) }
        let kept = Task { try await second.send(endpoint) }
        await clock.waitForSleepers(2)
        first.cancelAll()
        #expect((try #require(await cancelled.result.failureValue as? CourierError)).code == .cancelled)
        clock.advance(by: .seconds(10))
        #expect(try await kept.value.statusCode == 200)
    }
}
