@_spi(Locking) import CourierCore
import CourierResilience
import CourierTestSupport
import CourierTesting
import Testing

/// The retry budget: retries add at most their share to the calls of the
/// window, across every call and client using it. `TestClock` throughout.
struct RetryBudgetTests {
    @Test func retriesStopAtTheirShareOfTheCalls() {
        let clock = TestClock(mode: .manual)
        let budget = RetryBudget(ratio: 0.1, minimumPerSecond: 0, window: .seconds(10), clock: clock)
        for _ in 0..<100 { budget.recordCall() }
        let granted = (0..<20).filter { _ in budget.withdrawRetry() }.count
        #expect(granted == 10)
        #expect(budget.counts == (calls: 100, retries: 10))
    }

    @Test func theAllowanceLetsAQuietClientRetry() {
        let clock = TestClock(mode: .manual)
        let budget = RetryBudget(ratio: 0.2, minimumPerSecond: 1, window: .seconds(10), clock: clock)
        budget.recordCall()
        // 10 retries (1 per second of the window) plus 20 % of one call.
        #expect((0..<20).filter { _ in budget.withdrawRetry() }.count == 10)
    }

    @Test func callsAndRetriesAgeOutOfTheWindow() {
        let clock = TestClock(mode: .manual)
        let budget = RetryBudget(ratio: 0.5, minimumPerSecond: 0, window: .seconds(10), clock: clock)
        for _ in 0..<10 { budget.recordCall() }
        #expect((0..<10).filter { _ in budget.withdrawRetry() }.count == 5)
        // Five seconds on: new calls join the old ones; the old retries still count.
        clock.advance(by: .seconds(5))
        for _ in 0..<4 { budget.recordCall() }
        #expect((0..<10).filter { _ in budget.withdrawRetry() }.count == 2)
        // Ten seconds after the first calls, they and their retries have aged out.
        clock.advance(by: .seconds(5))
        #expect(budget.counts == (calls: 4, retries: 2))
        #expect(!budget.withdrawRetry())
        clock.advance(by: .seconds(5))
        #expect(budget.counts == (calls: 0, retries: 0))
    }

    @Test func anOutageAddsOnlyTheBudgetsShareOfRequests() async throws {
        let requests = Counter()
        let transport = StubTransport { _ in
            requests.increment()
            return .status(503)
        }
        let budgetClock = TestClock(mode: .manual)
        let budget = RetryBudget(ratio: 0.2, minimumPerSecond: 0, clock: budgetClock)
        var policy = RetryPolicy(maxAttempts: 3, jitter: .none)
        policy.budget = budget
        // Two clients share the budget through the policy.
        let clients = (0..<2).map { _ in
            APIClient(configuration: .init(transport: transport, retryPolicy: policy, clock: TestClock()))
        }
        var reasons: [RetryStopReason?] = []
        for index in 0..<50 {
            let error = await expectFailure(clients[index % 2], Endpoint<RawResponse>(.get("feed"), on: .api))
            #expect(error?.response?.statusCode == 503)
            reasons.append(error?.retryStop?.reason)
        }
        // Without a budget: 150 requests. With it: 50 calls and 20 % more.
        #expect(requests.value == 60)
        #expect(budget.counts == (calls: 50, retries: 10))
        // Every call ended on a retry the budget refused: 40 at their first
        // retry, the 10 that got one at their second.
        #expect(reasons.filter { $0 == .retryBudgetExhausted }.count == 50)
        let last = await expectFailure(clients[0], Endpoint<RawResponse>(.get("feed"), on: .api))
        #expect(last?.retryStop?.reason == .retryBudgetExhausted)
        #expect(last?.retryStop?.detail.contains("retry budget is spent") == true)
    }
}
