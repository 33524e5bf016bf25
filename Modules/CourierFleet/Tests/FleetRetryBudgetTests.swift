@_spi(Locking) import CourierCore
import CourierFleet
import CourierResilience
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// The fleet's retry budget on a real `redis-server`: two instances draw on
/// one budget, counted over an hour so that no test depends on the clock;
/// through a client, a retry the fleet's budget refuses ends the call.
struct FleetRetryBudgetTests {
    static func fleet(_ port: Int) -> FleetState {
        FleetState(
            .init(
                endpoint: .tcp(host: "127.0.0.1", port: port), namespace: "budget-tests",
                expectedInstances: 2,
                commandTimeout: .seconds(10)))
    }

    @Test func twoInstancesDrawOnOneBudget() async throws {
        try await withRedis { server in
            let one = FleetRetryBudget(
                Self.fleet(server.port), ratio: 0.5, minimumPerSecond: 0, window: .seconds(3_600))
            let other = FleetRetryBudget(
                Self.fleet(server.port), ratio: 0.5, minimumPerSecond: 0, window: .seconds(3_600))
            for _ in 0..<2 { one.recordCall() }
            for _ in 0..<2 { other.recordCall() }
            // Calls are posted without waiting: a retry asked after them sees them
            // (each instance's commands go out in order on its connection), and the
            // other instance's once they have gone out.
            #expect(await one.withdrawRetry())
            #expect(one.counts.calls >= 2)
            var granted = 1
            for budget in [other, one, other] where await budget.withdrawRetry() { granted += 1 }
            // Four calls at 0.5: two retries for the fleet, not two for each.
            #expect(granted == 2)
            #expect(other.counts == (calls: 4, retries: 2) || one.counts == (calls: 4, retries: 2))
        }
    }

    @Test func aRetryTheFleetsBudgetRefusesEndsTheCall() async throws {
        try await withRedis { server in
            let budget = FleetRetryBudget(
                Self.fleet(server.port), ratio: 0, minimumPerSecond: 0, window: .seconds(3_600))
            var policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)
            policy.fleetBudget = budget
            let transport = StubTransport.immediate(.status(503))
            let client = APIClient(
                configuration: .init(transport: transport, retryPolicy: policy, clock: TestClock()))
            let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
            #expect(error?.retryStop?.reason == .retryBudgetExhausted)
            #expect(error?.attempt == 1)
        }
    }
}
