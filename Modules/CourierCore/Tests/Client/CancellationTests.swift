import CourierCore
import CourierTestSupport
import CourierTesting
import Testing

struct CancellationTests {
    @Test func cancellingTheTaskCancelsTheTransportWork() async throws {
        let clock = TestClock(mode: .manual)
        let transportSawCancellation = Counter()
        let transport = StubTransport { _ in
            do {
                try await clock.sleep(for: .seconds(30))
            } catch is CancellationError {
                transportSawCancellation.increment()
                throw CancellationError()
            }
            return .json("{}")
        }
        let client = makeClient(transport, clock: clock)
        let task = Task { try await client.send(Endpoint<RawResponse>(.get("slow"), on: .api)) }
        await clock.waitForSleepers(1)
        task.cancel()
        let result = await task.result
        let error = try #require(result.failureValue as? CourierError)
        #expect(error.code == .cancelled)
        #expect(error.isCancelled)
        #expect(error.stage == .transport)
        #expect(transportSawCancellation.value == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingDuringBackoffStopsRetrying() async throws {
        let clock = TestClock(mode: .manual)
        let recorder = RecordingTransport(StubTransport.immediate(.status(503)))
        let client = makeClient(
            recorder,
            retryPolicy: RetryPolicy(maxAttempts: 5, backoff: .constant(.seconds(10)), jitter: .none),
            clock: clock)
        let task = Task { try await client.send(Endpoint<RawResponse>(.get("x"), on: .api)) }
        await clock.waitForSleepers(1)
        task.cancel()
        let error = try #require(await task.result.failureValue as? CourierError)
        #expect(error.code == .cancelled)
        #expect(error.stage == .retry)
        #expect(recorder.records.count == 1)
    }

    @Test func cancellableCallCancelsTheTransportWork() async throws {
        let clock = TestClock(mode: .manual)
        let client = makeClient(
            StubTransport(latency: .seconds(5), clock: clock) { _ in .json("{}") }, clock: clock)
        let results = EventLog()
        let call = client.send(Endpoint<RawResponse>(.get("x"), on: .api)) { result in
            results.append(result.failureValue?.code.rawValue ?? "success")
        }
        await clock.waitForSleepers(1)
        call.cancel()
        await call.wait()
        #expect(call.isCancelled)
        #expect(results.events == ["cancelled"])
    }

    @Test func aFinishedCallIsNotChangedByALateCancel() async throws {
        let client = makeClient(StubTransport.immediate(.json("{}")))
        let results = EventLog()
        let call = client.send(Endpoint<RawResponse>(.get("x"), on: .api)) { result in
            results.append(result.failureValue?.code.rawValue ?? "success")
        }
        await call.wait()
        call.cancel()
        #expect(results.events == ["success"])
    }
}
