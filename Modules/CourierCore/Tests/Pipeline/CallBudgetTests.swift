import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// Attempts and the retry deadline belong to the call: every `next` a
/// per-call interceptor makes, and every replay a response handler asks for,
/// draws on the same count and the same deadline.
struct CallBudgetTests {
    /// Calls `next`; when that fails, calls it once more (a refresh-and-replay).
    static let replayOnce = ClosureInterceptor { request, _, next in
        do {
            return try await next(request)
        } catch {
            return try await next(request)
        }
    }

    @Test func aReplayByAPerCallInterceptorContinuesTheAttemptCount() async throws {
        // Given a policy of two attempts and a server that always answers 503,
        let recorder = RecordingTransport(StubTransport.immediate(.status(503)))
        let client = makeClient(
            recorder,
            retryPolicy: RetryPolicy(maxAttempts: 2, backoff: .constant(.seconds(1)), jitter: .none),
            callInterceptors: [Self.replayOnce])
        // when an interceptor replays the call after the policy gave up,
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        // then the replay is attempt 3 and the policy gives it no fresh budget:
        // three requests, not four.
        #expect(recorder.records.count == 3)
        #expect(error?.attempt == 3)
        #expect(error?.response?.statusCode == 503)
    }

    @Test func replyAttemptsCountEveryRequestOfTheCall() async throws {
        let recorder = RecordingTransport(StubTransport.sequence([.status(401), .json("{}")]))
        let client = makeClient(recorder, callInterceptors: [Self.replayOnce])
        let reply = try await client.response(Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(reply.attempts == 2)
        #expect(recorder.records.count == 2)
    }

    @Test func theDeadlineHoldsAcrossAReplay() async throws {
        // Attempts at 0 s, 4 s and 8 s; the next wait would end past 10 s.
        let clock = TestClock()
        let recorder = RecordingTransport(StubTransport.immediate(.status(503)))
        let client = makeClient(
            recorder,
            retryPolicy: RetryPolicy(
                maxAttempts: 10, backoff: .constant(.seconds(4)), jitter: .none, deadline: .seconds(10)),
            clock: clock, callInterceptors: [Self.replayOnce])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        // The replay at 8 s still has 2 s: one more attempt, then the deadline
        // stops it. The call never runs past its deadline.
        #expect(error?.code == .deadlineExceeded)
        #expect(recorder.records.count == 4)
        #expect(error?.attempt == 4)
        #expect(clock.now == .seconds(8))
    }

    @Test func aReplayAfterTheDeadlinePassedSendsNothing() async throws {
        let clock = TestClock()
        let recorder = RecordingTransport(StubTransport.immediate(.status(503)))
        // Attempts at 0 s and 5 s; the replay comes at 10 s, when no time is left.
        let client = makeClient(
            recorder,
            retryPolicy: RetryPolicy(
                maxAttempts: 2, backoff: .constant(.seconds(5)), jitter: .none, deadline: .seconds(10)),
            clock: clock,
            callInterceptors: [
                ClosureInterceptor { request, _, next in
                    do {
                        return try await next(request)
                    } catch {
                        try await clock.sleep(for: .seconds(5))
                        return try await next(request)
                    }
                }
            ])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .deadlineExceeded)
        #expect(recorder.records.count == 2)
    }

    @Test func responseHandlerReplaysContinueTheAttemptCount() async throws {
        let recorder = RecordingTransport(
            StubTransport.sequence([.status(503), .status(503), .json(#"{"id":1,"name":"a"}"#)]))
        let endpoint = Endpoint<User>(.get("u"), on: .api).onResponse { result, context in
            if case .failure = result, context.replays == 0 { return .retry(after: .zero) }
            return .deliver(result)
        }
        let client = makeClient(
            recorder, retryPolicy: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero), jitter: .none))
        let reply = try await client.response(endpoint)
        // Pass 1: attempts 1 and 2 (the policy's two); the replay: attempt 3.
        #expect(reply.attempts == 3)
        #expect(recorder.records.count == 3)
    }

    @Test func transportResendsAreSummedAcrossAttempts() async throws {
        // A transport that says it resent the request once on every attempt.
        struct Resending: Transport {
            let statuses: StubTransport
            func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
                var response = try await statuses.send(request, options: options)
                response.metrics.resends = 1
                return response
            }
        }
        let client = makeClient(
            Resending(statuses: StubTransport.sequence([.status(503), .json("{}")])),
            retryPolicy: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero), jitter: .none))
        let reply = try await client.response(Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(reply.attempts == 2)
        #expect(reply.transportResends == 2)
    }
}
