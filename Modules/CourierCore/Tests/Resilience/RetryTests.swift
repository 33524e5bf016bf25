import CourierCore
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

struct RetryTests {
    let endpoint = Endpoint<User>(.get("u"), on: .api)
    static let okUser = StubOutcome.json(#"{"id":1,"name":"Ada"}"#)

    @Test func retriesUntilSuccessAndCountsAttempts() async throws {
        let recorder = RecordingTransport(
            StubTransport.sequence([.status(503), .failure(.connectionReset), Self.okUser]))
        let client = makeClient(recorder, retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none))
        let reply = try await client.response(endpoint)
        #expect(reply.model.name == "Ada")
        #expect(reply.attempts == 3)
        #expect(recorder.records.count == 3)
    }

    @Test func exponentialScheduleIsCappedOnTheTestClock() async throws {
        let clock = TestClock()
        let client = makeClient(
            StubTransport.immediate(.status(500)),
            retryPolicy: RetryPolicy(
                maxAttempts: 6,
                backoff: .exponential(initial: .milliseconds(100), multiplier: 3, cap: .seconds(2)),
                jitter: .none),
            clock: clock)
        let error = await expectFailure(client, endpoint)
        #expect(
            clock.sleeps == [
                .milliseconds(100), .milliseconds(300), .milliseconds(900), .seconds(2), .seconds(2),
            ])
        #expect(clock.now == .milliseconds(5300))
        #expect(error?.code == .retriesExhausted)
        #expect(error?.attempt == 6)
        #expect(error?.stage == .retry)
        #expect(error?.rootCause.code == .status)
        #expect(error?.response?.statusCode == 500)
    }

    @Test func fullJitterScalesTheDelay() async throws {
        let clock = TestClock()
        let client = makeClient(
            StubTransport.sequence([.status(502), .status(502), Self.okUser]),
            retryPolicy: RetryPolicy(
                maxAttempts: 3, backoff: .exponential(initial: .seconds(1)), jitter: .full(random: { 0.25 })),
            clock: clock)
        _ = try await client.send(endpoint)
        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(500)])
    }

    @Test func perAttemptDelayClosureChoosesEachDelay() async throws {
        let clock = TestClock()
        let delays: [Duration] = [.seconds(5), .seconds(5), .seconds(10)]
        let client = makeClient(
            StubTransport.sequence([.status(503), .status(503), .status(503), Self.okUser]),
            retryPolicy: .delays(maxAttempts: 4) { index in delays[index] }, clock: clock)
        _ = try await client.send(endpoint)
        #expect(clock.sleeps == delays)
    }

    @Test func delayClosureReturningNilStopsRetrying() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.status(503)))
        let client = makeClient(recorder, retryPolicy: .delays(maxAttempts: 10) { $0 < 1 ? .zero : nil })
        let error = await expectFailure(client, endpoint)
        #expect(recorder.records.count == 2)
        #expect(error?.code == .retriesExhausted)
    }

    @Test func retryAfterSecondsOverridesAShorterBackoff() async throws {
        let clock = TestClock()
        let client = makeClient(
            StubTransport.sequence([.status(429, headers: [.retryAfter: "7"]), Self.okUser]),
            retryPolicy: RetryPolicy(maxAttempts: 2, backoff: .constant(.seconds(1)), jitter: .none),
            clock: clock)
        _ = try await client.send(endpoint)
        #expect(clock.sleeps == [.seconds(7)])
    }

    @Test func retryAfterHTTPDateIsMeasuredFromTheClockDate() async throws {
        let clock = TestClock()
        let date = HTTPDate.format(clock.date.addingTimeInterval(12))
        let client = makeClient(
            StubTransport.sequence([.status(503, headers: [.retryAfter: date]), Self.okUser]),
            retryPolicy: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero), jitter: .none), clock: clock)
        _ = try await client.send(endpoint)
        #expect(clock.sleeps == [.seconds(12)])
    }

    @Test func retryAfterBeyondTheLimitStopsWithTheOriginalError() async throws {
        let recorder = RecordingTransport(
            StubTransport.immediate(.status(503, headers: [.retryAfter: "3600"])))
        let client = makeClient(
            recorder, retryPolicy: RetryPolicy(maxAttempts: 3, maxRetryAfter: .seconds(60)))
        let error = await expectFailure(client, endpoint)
        #expect(recorder.records.count == 1)
        #expect(error?.code == .status)
        // Why it was not retried travels with the error.
        #expect(error?.retryStop?.reason == .retryAfterTooLong)
        #expect(
            error?.description.contains("not retried: the server asked for a longer wait (Retry-After: 3600)")
                == true)
    }

    @Test(arguments: [HTTPRequest.Method.post, .patch])
    func nonIdempotentMethodsAreNotRetriedByDefault(method: HTTPRequest.Method) async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.status(503)))
        let client = makeClient(recorder, retryPolicy: .standard)
        let error = await expectFailure(client, Endpoint<User>(Route(method, "u"), on: .api))
        #expect(recorder.records.count == 1)
        #expect(error?.code == .status)
        #expect(error?.retryStop?.reason == .methodNotRetryable)
        #expect(error?.description.contains("not retried:") == true)
    }

    @Test(arguments: [HTTPRequest.Method.post, .patch])
    func anIdempotencyKeyMakesAnyMethodRetryableWithTheSameKey(method: HTTPRequest.Method) async throws {
        let recorder = RecordingTransport(StubTransport.sequence([.status(503), Self.okUser]))
        let client = makeClient(recorder, retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none))
        let keyField = try #require(RetryPolicy.defaultIdempotencyKeyField)
        let endpoint = Endpoint<User>(Route(method, "u"), on: .api, headers: [keyField: "order-7"])
        _ = try await client.send(endpoint)
        #expect(recorder.records.map { $0.head.headerFields[keyField] } == ["order-7", "order-7"])
    }

    @Test func theIdempotencyKeyFieldIsConfigurableAndCanBeTurnedOff() async throws {
        let custom = try #require(HTTPField.Name("X-Request-Id"))
        var policy = RetryPolicy(maxAttempts: 3, jitter: .none)
        policy.idempotencyKeyField = custom
        let keyed = RecordingTransport(StubTransport.sequence([.status(503), Self.okUser]))
        _ = try await makeClient(keyed, retryPolicy: policy).send(
            Endpoint<User>(.post("u"), on: .api, headers: [custom: "r-1"]))
        #expect(keyed.records.count == 2)
        policy.idempotencyKeyField = nil
        let off = RecordingTransport(StubTransport.sequence([.status(503), Self.okUser]))
        _ = await expectFailure(
            makeClient(off, retryPolicy: policy),
            Endpoint<User>(.post("u"), on: .api, headers: [custom: "r-1"]))
        #expect(off.records.count == 1)
    }

    @Test func nonIdempotentMethodsRetryWhenAllowed() async throws {
        let recorder = RecordingTransport(StubTransport.sequence([.status(503), Self.okUser]))
        var policy = RetryPolicy(maxAttempts: 2, jitter: .none)
        policy.retryableMethods.insert(.post)
        let client = makeClient(recorder, retryPolicy: policy)
        _ = try await client.send(Endpoint<User>(.post("u"), on: .api, content: .json(["a": 1])))
        #expect(recorder.records.map(\.bodyText) == [#"{"a":1}"#, #"{"a":1}"#])
    }

    @Test func aOneShotBodyIsNeverResent() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.status(503)))
        var policy = RetryPolicy(maxAttempts: 3, jitter: .none)
        policy.retryableMethods.insert(.post)
        let client = makeClient(recorder, retryPolicy: policy)
        let stream = AsyncThrowingStream<[UInt8], any Error> { continuation in
            continuation.yield([1, 2])
            continuation.finish()
        }
        let body = RequestBody(length: 2, chunks: stream)
        let error = await expectFailure(
            client, Endpoint<User>(.post("u"), on: .api, content: .body(body, contentType: "application/x")))
        #expect(recorder.records.count == 1)
        #expect(error?.code == .bodyNotReplayable)
        #expect(error?.rootCause.code == .status)
    }

    @Test func deadlineAcrossAttemptsStopsRetrying() async throws {
        let clock = TestClock()
        let recorder = RecordingTransport(StubTransport.immediate(.status(503)))
        let client = makeClient(
            recorder,
            retryPolicy: RetryPolicy(
                maxAttempts: 10, backoff: .constant(.seconds(4)), jitter: .none, deadline: .seconds(10)),
            clock: clock)
        let error = await expectFailure(client, endpoint)
        // Attempts at t=0, 4 and 8 s; the next wait would end at 12 s, past the deadline.
        #expect(recorder.records.count == 3)
        #expect(clock.sleeps == [.seconds(4), .seconds(4)])
        #expect(error?.code == .deadlineExceeded)
        #expect(error?.rootCause.code == .status)
    }

    @Test func deadlineShortensTheAttemptTimeout() async throws {
        let clock = TestClock(mode: .autoAdvance)
        let transport = StubTransport(latency: .seconds(30), clock: clock) { _ in Self.okUser }
        var endpoint = self.endpoint
        endpoint.timeout = .seconds(60)
        let client = makeClient(
            transport, retryPolicy: RetryPolicy(maxAttempts: 1, deadline: .seconds(5)), clock: clock)
        let error = await expectFailure(client, endpoint)
        #expect(error?.code == .timedOut)
        #expect(clock.sleeps == [.seconds(5)])
    }

    @Test func businessCodesRetryOnlyWhenListed() async throws {
        let outcomes: [StubOutcome] = [
            .envelope(code: 5001, msg: "busy"), .envelope(code: 0, data: #"{"id":2,"name":"B"}"#),
        ]
        let endpoint = Endpoint<User>(.get("u"), on: .enveloped)

        let plain = RecordingTransport(StubTransport.sequence(outcomes))
        let error = await expectFailure(makeClient(plain, retryPolicy: .standard), endpoint)
        #expect(plain.records.count == 1)
        #expect(error?.businessFailure?.code == 5001)

        let listed = RecordingTransport(StubTransport.sequence(outcomes))
        let policy = RetryPolicy(maxAttempts: 2, jitter: .none, retryableBusinessCodes: [5001])
        let user = try await makeClient(listed, retryPolicy: policy).send(endpoint)
        #expect(user.id == 2)
        #expect(listed.records.count == 2)
    }

    @Test func transportErrorsRetryByKind() async throws {
        let retried = RecordingTransport(StubTransport.sequence([.failure(.timedOut), Self.okUser]))
        _ = try await makeClient(retried, retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none)).send(
            endpoint)
        #expect(retried.records.count == 2)

        let notRetried = RecordingTransport(StubTransport.sequence([.failure(.tls), Self.okUser]))
        let error = await expectFailure(makeClient(notRetried, retryPolicy: .standard), endpoint)
        #expect(notRetried.records.count == 1)
        #expect(error?.code == .transport)
    }

    @Test func endpointPolicyOverridesTheClientDefault() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.status(503)))
        let client = makeClient(recorder, retryPolicy: RetryPolicy(maxAttempts: 5, jitter: .none))
        _ = await expectFailure(client, endpoint.retrying(.never))
        #expect(recorder.records.count == 1)
    }

    @Test func retryIfFailedShorthandRetries() async throws {
        let recorder = RecordingTransport(StubTransport.sequence([.status(500), Self.okUser]))
        _ = try await makeClient(recorder).send(endpoint.retrying(.retryIfFailed(maxAttempts: 2)))
        #expect(recorder.records.count == 2)
    }
}

struct RetryDecisionTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func failure(status: Int, headers: HTTPFields = [:]) -> CourierError {
        CourierError(
            .status, stage: .validation, message: "",
            response: RawResponse(head: HTTPResponse(status: .init(code: status), headerFields: headers)))
    }

    @Test func decisionsInDocumentedOrder() {
        let policy = RetryPolicy(
            maxAttempts: 2, backoff: .constant(.seconds(1)), jitter: .none, deadline: .seconds(3))
        #expect(
            policy.decide(
                after: failure(status: 404), attempt: 1, method: .get, bodyIsReplayable: true, elapsed: .zero,
                now: now) == .stop(.notRetryable))
        #expect(
            policy.decide(
                after: failure(status: 503), attempt: 2, method: .get, bodyIsReplayable: true, elapsed: .zero,
                now: now) == .stop(.attemptsExhausted))
        #expect(
            policy.decide(
                after: failure(status: 503), attempt: 1, method: .post, bodyIsReplayable: true,
                elapsed: .zero, now: now) == .stop(.methodNotRetryable))
        #expect(
            policy.decide(
                after: failure(status: 503), attempt: 1, method: .get, bodyIsReplayable: false,
                elapsed: .zero, now: now) == .stop(.bodyNotReplayable))
        #expect(
            policy.decide(
                after: failure(status: 503), attempt: 1, method: .get, bodyIsReplayable: true,
                elapsed: .seconds(2), now: now) == .stop(.deadlineExceeded))
        #expect(
            policy.decide(
                after: failure(status: 503), attempt: 1, method: .get, bodyIsReplayable: true, elapsed: .zero,
                now: now) == .retry(after: .seconds(1)))
    }

    @Test func cancellationIsNeverRetried() {
        let cancelled = CourierError(.cancelled, stage: .transport, message: "")
        let policy = RetryPolicy(retryIf: { _ in true })
        #expect(
            policy.decide(
                after: cancelled, attempt: 1, method: .get, bodyIsReplayable: true, elapsed: .zero, now: now)
                == .stop(.notRetryable))
    }

    @Test func customPredicateReplacesTheBuiltInTest() {
        let policy = RetryPolicy(jitter: .none, retryIf: { $0.response?.statusCode == 404 })
        #expect(policy.isRetryable(failure(status: 404)))
        #expect(!policy.isRetryable(failure(status: 503)))
    }

    @Test func unparsableRetryAfterFallsBackToBackoff() {
        let policy = RetryPolicy(maxAttempts: 2, backoff: .constant(.seconds(2)), jitter: .none)
        let decision = policy.decide(
            after: failure(status: 503, headers: [.retryAfter: "soon"]), attempt: 1, method: .get,
            bodyIsReplayable: true, elapsed: .zero, now: now)
        #expect(decision == .retry(after: .seconds(2)))
    }
}

struct RetryAfterTests {
    let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:47 GMT", 10),
        ("Sunday, 06-Nov-94 08:49:57 GMT", 20),
        ("Sun Nov  6 08:50:07 1994", 30),
        ("120", 120),
        ("0", 0),
        ("Sun, 06 Nov 1994 08:00:00 GMT", 0),
    ])
    func parsesEveryForm(value: String, seconds: Int) {
        #expect(RetryAfter.delay(from: value, now: now) == .seconds(seconds))
    }

    @Test(arguments: [
        "", "-5", "1.5", "soon", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
    ])
    func rejectsGarbage(value: String) {
        #expect(RetryAfter.delay(from: value, now: now) == nil)
    }

    @Test func formatsAndParsesIMFFixdate() throws {
        #expect(HTTPDate.format(now) == "Sun, 06 Nov 1994 08:49:37 GMT")
        let date = Date(timeIntervalSince1970: 1_709_251_199)  // leap year, 29 Feb 2024 23:59:59
        #expect(HTTPDate.format(date) == "Thu, 29 Feb 2024 23:59:59 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
    }
}
