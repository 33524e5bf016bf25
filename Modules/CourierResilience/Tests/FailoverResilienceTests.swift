@_spi(Locking) import CourierCore
import CourierResilience
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// A node's failover with the client's circuit breaker and retry budget:
/// an origin whose circuit is open is skipped for the next base URL, and
/// each move spends a retry the budget must allow.
struct FailoverResilienceTests {
    static let node = Node(
        "api", baseURLs: ["https://a.example/v1", "https://b.example/v1"], failover: .primaryFirst)

    /// The hosts asked, in order.
    final class Hosts: Sendable {
        let list = Locked<[String]>([])
        var asked: [String] { list.withLock { $0 } }
    }

    /// `a.example` answers 503, or refuses connections; `b.example` 200.
    static func transport(_ requests: Hosts, aRefuses: Bool) -> StubTransport {
        StubTransport { request in
            let host = request.head.authority ?? ""
            requests.list.withLock { $0.append(host) }
            guard host == "a.example" else { return .json("{}") }
            return aRefuses ? .failure(.connectionFailed, "refused") : .status(503)
        }
    }

    @Test func anOpenCircuitMovesTheAttemptToTheNextServer() async throws {
        let requests = Hosts()
        let clock = TestClock(mode: .manual)
        var configuration = APIClient.Configuration(
            transport: Self.transport(requests, aRefuses: false), clock: TestClock())
        configuration.circuitBreaker = CircuitBreaker(
            .init(
                failureRateThreshold: 0.5, minimumCalls: 2, window: .seconds(30), openDuration: .seconds(30),
                halfOpenProbes: 1),
            clock: clock)
        let client = APIClient(configuration: configuration)
        let endpoint = Endpoint<RawResponse>(.get("x"), on: Self.node)
        // A 503 reached a server: no move; two of them open a.example's circuit.
        for _ in 0..<2 { #expect(await expectFailure(client, endpoint)?.code == .status) }
        #expect(requests.asked == ["a.example", "a.example"])
        // Now a.example's circuit refuses the attempt before sending: b answers.
        let response = try await client.send(endpoint)
        #expect(response.statusCode == 200)
        #expect(requests.asked == ["a.example", "a.example", "b.example"])
    }

    @Test func aMoveSpendsARetryTheBudgetMustAllow() async throws {
        let requests = Hosts()
        var configuration = APIClient.Configuration(
            transport: Self.transport(requests, aRefuses: true), clock: TestClock())
        // No retry allowed: ratio 0, no floor.
        configuration.retryPolicy = RetryPolicy.never
        configuration.retryPolicy.budget = RetryBudget(
            ratio: 0, minimumPerSecond: 0, window: .seconds(10), clock: TestClock())
        let client = APIClient(configuration: configuration)
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: Self.node))
        #expect((error?.underlying as? TransportError)?.code == .connectionFailed)
        #expect(requests.asked == ["a.example"])
    }
}
