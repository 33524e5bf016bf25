import CourierAuthentication
import CourierConcurrencyGroups
@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// The events a call's monitors and plugins see, in the order the steps
/// happened.
struct EventMonitorTests {
    /// Writes each event as one line.
    final class Recorder: Plugin {
        private let lines = Locked<[String]>([])
        var recorded: [String] { lines.withLock { $0 } }

        func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }

        func callEvent(_ event: CallEvent) {
            let line: String
            switch event.kind {
            case .passStarted: line = "pass"
            case .cache(let outcome): line = "cache \(outcome)"
            case .coalesced(let joined): line = joined ? "joined" : "leads"
            case .policy(let decision):
                if case .refused(let error) = decision {
                    line = "refused \(error.code)"
                } else {
                    line = "policy \(decision)"
                }
            case .attemptStarted(let number, let request):
                line = "attempt \(number) \(request.path ?? "") (\(event.context.attempt))"
            case .redirected(let status, let from, let to):
                line = "\(status) \(from.path ?? "") → \(to.path ?? "")"
            case .failedOver(let from, let to, let failure):
                line = "failover \(from.authority ?? "") → \(to.authority ?? "") after \(failure.code)"
            case .attemptFinished(let number, let result):
                switch result {
                case .success(let response): line = "attempt \(number) → \(response.statusCode)"
                case .failure(let error): line = "attempt \(number) → \(error.code)"
                }
            case .retryScheduled(let delay, let failure): line = "retry in \(delay) after \(failure.code)"
            case .credentialRefreshStarted: line = "refresh"
            case .credentialRefreshFinished(let succeeded): line = "refreshed \(succeeded)"
            case .streamEnded(let summary): line = "stream ended \(summary.bytes)"
            case .passFinished(let outcome):
                line = "end " + ((try? outcome.get()).map { "\($0.statusCode)" } ?? "failure")
            case .decodingFailed(let error): line = "not decoded: \(error.code) at \(error.stage)"
            }
            lines.withLock { $0.append(line) }
        }
    }

    @Test func aRetryAndARedirectInOrderToMonitorsAndPlugins() async throws {
        let served = Locked(0)
        let transport = StubTransport { request in
            let number = served.withLock {
                $0 += 1
                return $0
            }
            switch (request.head.path, number) {
            case ("/v1/start", 1): return .status(503)
            case ("/v1/start", _): return .status(302, headers: [.location: "/v1/end"])
            default: return .json("{}")
            }
        }
        let monitor = Recorder()
        let plugin = Recorder()
        var configuration = APIClient.Configuration(
            transport: transport, plugins: [plugin],
            retryPolicy: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero), jitter: .none))
        configuration.eventMonitors = [monitor]
        _ = try await APIClient(configuration: configuration).send(
            Endpoint<RawResponse>(.get("start"), on: .api))
        let expected = [
            "pass", "attempt 1 /v1/start (1)", "attempt 1 → status", "retry in 0.0 seconds after status",
            "attempt 2 /v1/start (2)", "302 /v1/start → /v1/end", "attempt 2 → 200", "end 200",
        ]
        #expect(monitor.recorded == expected)
        #expect(plugin.recorded == expected)
    }

    /// A body that does not decode after a pass that succeeded: an event
    /// says so (the pass's own end said 200), for logs and monitors.
    @Test func aBodyThatDoesNotDecodeIsAnEvent() async throws {
        struct NotAnInteger: Error {}
        let monitor = Recorder()
        var configuration = APIClient.Configuration(transport: StubTransport { _ in .json(#"{"id":"x"}"#) })
        configuration.eventMonitors = [monitor]
        let endpoint = Endpoint<Int>(
            spec: EndpointSpec(route: .get("n"), node: .api), serializer: .map { _ in throw NotAnInteger() })
        let error = await expectFailure(APIClient(configuration: configuration), endpoint)
        #expect(error?.code == .decoding)
        #expect(monitor.recorded.suffix(2) == ["end 200", "not decoded: decoding at decoding"])
    }

    @Test func coalescedCallsAndAGroupsPolicy() async throws {
        let gate = TestGate()
        let transport = StubTransport { _ in
            await gate.wait()
            return .json("{}")
        }
        let monitor = Recorder()
        var configuration = APIClient.Configuration(transport: transport)
        configuration.concurrencyGroup = ConcurrencyGroup()
        configuration.eventMonitors = [monitor]
        let client = APIClient(configuration: configuration)
        let endpoint = Endpoint<RawResponse>(.get("shared"), on: .api).coalesced()
        async let first = client.send(endpoint)
        async let second = client.send(endpoint)
        try await waitUntil { client.coalescedCalls >= 2 }
        gate.open()
        _ = try await (first, second)
        let recorded = monitor.recorded
        #expect(recorded.filter { $0 == "leads" }.count == 1)
        #expect(recorded.filter { $0 == "joined" }.count == 1)
        // One exchange, admitted by the group's policy before it began.
        #expect(recorded.filter { $0.hasPrefix("attempt 1 /") }.count == 1)
        let admitted = try #require(recorded.firstIndex(of: "policy ran"))
        let began = try #require(recorded.firstIndex { $0.hasPrefix("attempt 1 /") })
        #expect(admitted < began)
        #expect(recorded.filter { $0 == "end 200" }.count == 2)
    }

    struct Tokens: CredentialProvider {
        func apply(_ token: String, to request: inout HTTPRequest) {
            request.headerFields[.authorization] = "Bearer \(token)"
        }
        func refresh(_ token: String, through client: APIClient) async throws -> String { "new" }
    }

    @Test func aCredentialRefreshBetweenTheRefusedAttemptAndTheReplay() async throws {
        let transport = StubTransport { request in
            request.head.headerFields[.authorization] == "Bearer new" ? .json("{}") : .status(401)
        }
        let monitor = Recorder()
        let auth = Authenticator(Tokens(), for: [.api], credential: "old")
        var configuration = APIClient.Configuration(transport: transport, callInterceptors: [auth])
        configuration.eventMonitors = [monitor]
        _ = try await APIClient(configuration: configuration).send(
            Endpoint<RawResponse>(.get("me"), on: .api))
        #expect(
            monitor.recorded == [
                "pass", "attempt 1 /v1/me (1)", "attempt 1 → status", "refresh", "refreshed true",
                "attempt 2 /v1/me (2)", "attempt 2 → 200", "end 200",
            ])
    }
}
