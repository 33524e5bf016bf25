import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

struct ResponseHandlerTests {
    @Test func aHandlerCanReplaceAFailureWithAModel() async throws {
        let endpoint = Endpoint<User>(.get("u"), on: .api).onResponse { result, _ in
            if case .failure = result { return .deliver(.success(User(id: 0, name: "fallback"))) }
            return .deliver(result)
        }
        let user = try await makeClient(StubTransport.immediate(.status(500))).send(endpoint)
        #expect(user.name == "fallback")
    }

    @Test func aBusinessErrorCanResendWithAChangedEndpoint() async throws {
        // CSAPIService's example: code 1001 asks for a captcha, the handler re-sends with one.
        let recorder = RecordingTransport(
            StubTransport { request in
                request.head.path?.contains("captcha=1234") == true
                    ? .envelope(code: 0, data: #"{"id":9,"name":"in"}"#)
                    : .envelope(code: 1001, msg: "captcha")
            })
        let base = Endpoint<User>(.get("login"), on: .enveloped)
        let endpoint = base.onResponse { result, context in
            if case .failure(let error) = result, error.businessFailure?.code == 1001, context.replays == 0 {
                return .resend(base.adding(query: ["captcha": "1234"]), after: .seconds(1))
            }
            return .deliver(result)
        }
        let clock = TestClock()
        let user = try await makeClient(recorder, clock: clock).send(endpoint)
        #expect(user.id == 9)
        #expect(recorder.records.map(\.head.path) == ["/v1/login", "/v1/login?captcha=1234"])
        #expect(clock.sleeps == [.seconds(1)])
    }

    @Test func replaysAreBounded() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.status(500)))
        let endpoint = Endpoint<User>(.get("u"), on: .api).onResponse { _, _ in .retry(after: .zero) }
        let error = await expectFailure(makeClient(recorder), endpoint)
        #expect(error?.code == .retriesExhausted)
        #expect(error?.stage == .responseInterception)
        #expect(recorder.records.count == 4)  // the call and maxReplays (3) more
    }

    @Test func handlersRunInOrderAndSeeEarlierReplacements() async throws {
        let endpoint = Endpoint<User>(.get("u"), on: .api)
            .onResponse { _, _ in .deliver(.success(User(id: 1, name: "first"))) }
            .onResponse { result, _ in .deliver(result.map { User(id: $0.id + 1, name: $0.name + "+second") })
            }
        let user = try await makeClient(StubTransport.immediate(.status(500))).send(endpoint)
        #expect(user == User(id: 2, name: "first+second"))
    }
}
