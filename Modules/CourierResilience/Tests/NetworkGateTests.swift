import CourierCore
import CourierResilience
import CourierTestSupport
import CourierTesting
import Testing

/// The reachability gate: offline, an attempt fails with `.offline` before
/// anything is sent (no interceptor sees it, no retry is burnt); online
/// again, the next call goes through.
struct NetworkGateTests {
    @Test func offlineRefusesBeforeSendingAndOnlineSendsAgain() async throws {
        let network = FakeNetworkMonitor(.offline("no default route"))
        let recorder = RecordingTransport(StubTransport.immediate(.json(#"{"id": 1}"#)))
        let attempts = Counter()
        let counting = ClosureInterceptor(name: "count") { request, _, next in
            attempts.increment()
            return try await next(request)
        }
        var configuration = makeClient(
            recorder, retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none), attemptInterceptors: [counting]
        ).configuration
        configuration.networkMonitor = network
        let client = APIClient(configuration: configuration)
        let endpoint = Endpoint<RawResponse>(.get("things"), on: .api)

        let error = await expectFailure(client, endpoint)
        #expect(error?.code == .offline)
        #expect(error?.description.contains("no default route") == true)
        #expect(error?.attempt == 1)
        #expect(recorder.records.isEmpty)
        #expect(attempts.value == 0)
        #expect(network.readCount == 1)  // not retried

        network.status = .online("default route via eth0")
        let response = try await client.send(endpoint)
        #expect(response.statusCode == 200)
        #expect(recorder.records.count == 1)
    }

    @Test func withoutAMonitorNothingIsAsked() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        _ = try await makeClient(recorder).send(Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(recorder.records.count == 1)
    }
}
