import CourierCore
import CourierMockServer
import CourierResilience
import CourierTesting
import Foundation
import Testing

/// The retry budget, the circuit breaker and the wait for the network
/// against a real server, over every transport: the server's journal, not
/// Courier's own counts, says what was sent. Every clock is a `TestClock`.
struct ResilienceTests {
    static let stubs = #"""
        {"mappings": [
          {"id": "overloaded", "request": {"urlPath": "/overloaded"}, "response": {"status": 503}},
          {"id": "resets", "request": {"urlPath": "/resets"}, "response": {"fault": "resetBeforeHeaders"}},
          {"id": "fine", "request": {"urlPath": "/fine"}, "response": {"status": 200, "body": "ok"}}
        ]}
        """#

    func withServer(_ body: (MockServer, Node) async throws -> Void) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            try await body(server, Node("mock", baseURL: server.baseURL))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func anOutageAddsOnlyTheRetryBudgetsShare(kind: TransportKind) async throws {
        try await withServer { server, node in
            let budget = RetryBudget(ratio: 0.2, minimumPerSecond: 0, clock: TestClock(mode: .manual))
            var policy = RetryPolicy(maxAttempts: 3, jitter: .none)
            policy.budget = budget
            let client = APIClient(
                configuration: .init(
                    transport: kind.transport, retryPolicy: policy, timeout: hangGuard, clock: TestClock()))
            for _ in 0..<10 {
                let error = await callFailure(client, Endpoint<RawResponse>(.get("overloaded"), on: node))
                #expect(error?.response?.statusCode == 503)
            }
            // Ten calls and 20 % more; without the budget, thirty requests.
            #expect(server.journal.entries(stub: "overloaded").count == 12)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aHostThatKeepsFailingIsNotSentMore(kind: TransportKind) async throws {
        try await withServer { server, node in
            let clock = TestClock(mode: .manual)
            let breaker = CircuitBreaker(.init(minimumCalls: 4, openDuration: .seconds(30)), clock: clock)
            var configuration = APIClient.Configuration(
                transport: kind.transport, timeout: hangGuard, clock: TestClock())
            configuration.circuitBreaker = breaker
            let client = APIClient(configuration: configuration)
            // Resets and 503s both say the server is unwell.
            for path in ["resets", "overloaded", "resets", "overloaded"] {
                let error = await callFailure(
                    client, Endpoint<RawResponse>(.get(RoutePath(escaped: path)), on: node))
                #expect(error != nil && error?.code != .circuitOpen)
            }
            let sent = server.journal.entries.count
            let refused = await callFailure(client, Endpoint<RawResponse>(.get("fine"), on: node))
            #expect(refused?.code == .circuitOpen)
            #expect((refused?.underlying as? CircuitOpenError)?.until == clock.date.addingTimeInterval(30))
            #expect(server.journal.entries.count == sent)
            // Thirty seconds on, a probe goes; the host answers, the circuit closes.
            clock.advance(by: .seconds(30))
            #expect(await callFailure(client, Endpoint<RawResponse>(.get("fine"), on: node)) == nil)
            #expect(server.journal.entries(stub: "fine").count == 1)
            #expect(breaker.state(of: server.baseURL) == .closed)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aCallMadeOfflineGoesWhenTheNetworkComesBack(kind: TransportKind) async throws {
        try await withServer { server, node in
            let network = FakeNetworkMonitor(.offline("no default route"))
            let clock = TestClock(mode: .manual)
            var configuration = APIClient.Configuration(
                transport: kind.transport, timeout: hangGuard, clock: clock)
            configuration.networkMonitor = network
            configuration.waitsForConnectivity = true
            let client = APIClient(configuration: configuration)
            let call = Task { await callFailure(client, Endpoint<RawResponse>(.get("fine"), on: node)) }
            await clock.waitForSleepers(1)
            try await waitUntil { network.listeners >= 1 }
            #expect(server.journal.entries.isEmpty)
            network.status = .online("default route via eth0")
            #expect(await call.value == nil)
            #expect(server.journal.entries(stub: "fine").count == 1)
        }
    }
}

/// The error a call ended with, or `nil` when it succeeded.
private func callFailure<R>(_ client: APIClient, _ endpoint: Endpoint<R>) async -> CourierError? {
    do {
        _ = try await client.send(endpoint)
        return nil
    } catch {
        return error
    }
}
