import CourierConcurrencyGroups
import CourierCore
import CourierTestSupport
import CourierTesting
import Testing

/// Concurrency policies through the pipeline: which calls reach the
/// transport, in what order, and what the others end with. A
/// ``HeldTransport`` holds each request until the test answers it, so
/// "running" is exact and no test waits on time.
struct ConcurrencyGroupTests {
    static func client(
        _ transport: HeldTransport, _ group: ConcurrencyGroup, retryPolicy: RetryPolicy = .never,
        clock: TestClock = TestClock(), callInterceptors: [any Interceptor] = []
    ) -> APIClient {
        var configuration = APIClient.Configuration(
            transport: transport, callInterceptors: callInterceptors, retryPolicy: retryPolicy, clock: clock)
        configuration.concurrencyGroup = group
        return APIClient(configuration: configuration)
    }

    /// `GET <path>` (a path under the node's `/v1`) with `policy`.
    static func endpoint(_ path: String, _ policy: ConcurrencyPolicy = .default) -> Endpoint<RawResponse> {
        Endpoint<RawResponse>(.get(RoutePath(escaped: String(path.dropFirst("/v1/".count)))), on: .api)
            .concurrency(policy)
    }

    /// Starts a call and returns its task, which gives the error code or `nil`.
    static func start(_ client: APIClient, _ endpoint: Endpoint<RawResponse>) -> Task<
        CourierError.Code?, Never
    > {
        Task {
            do throws(CourierError) {
                _ = try await client.send(endpoint)
                return nil
            } catch {
                return error.code
            }
        }
    }

    @Test func defaultCallsRunTogether() async {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("g")
        let client = Self.client(transport, group)
        let calls = (1...3).map { Self.start(client, Self.endpoint("/v1/\($0)")) }
        await transport.waitForArrivals(3)
        #expect(group.runningCalls == 3)
        for index in 1...3 { transport.answer("/v1/\(index)") }
        for call in calls { #expect(await call.value == nil) }
        #expect(group.runningCalls == 0)
    }

    @Test func ignoreCurrentFailsAtOnceWhileACallRunsAndIsNeverRetried() async throws {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("refresh")
        // A policy that would retry anything: the ignored call still is not retried.
        let retryEverything = RetryPolicy(maxAttempts: 5, retryIf: { _ in true })
        let client = Self.client(transport, group, retryPolicy: retryEverything)
        let first = Self.start(client, Self.endpoint("/v1/feed", .ignoreCurrent))
        await transport.waitForArrivals(1)
        let error = await expectFailure(client, Self.endpoint("/v1/feed", .ignoreCurrent))
        #expect(error?.code == .ignoredByPolicy)
        #expect(error?.stage == .concurrency)
        #expect(error?.attempt == 0)
        #expect(error?.message.contains("ConcurrencyGroup(\"refresh\")") == true)
        transport.answer("/v1/feed")
        #expect(await first.value == nil)
        #expect(transport.arrivals == ["/v1/feed"])
        // Once nothing runs, the same endpoint runs.
        let again = Self.start(client, Self.endpoint("/v1/feed", .ignoreCurrent))
        await transport.waitForArrivals(2)
        transport.answer("/v1/feed")
        #expect(await again.value == nil)
    }

    @Test func cancelOthersEndsRunningAndQueuedCallsWhichAreNeverRetried() async throws {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("search")
        let retryEverything = RetryPolicy(maxAttempts: 5, retryIf: { _ in true })
        let client = Self.client(transport, group, retryPolicy: retryEverything)
        let running = Self.start(client, Self.endpoint("/v1/a"))
        await transport.waitForArrivals(1)
        let queued = Self.start(client, Self.endpoint("/v1/b", .waitUntilAllDone))
        try await waitUntil { group.queuedCalls >= 1 }
        let latest = Self.start(client, Self.endpoint("/v1/c", .cancelOthers))
        #expect(await running.value == .cancelledByPolicy)
        #expect(await queued.value == .cancelledByPolicy)
        await transport.waitForArrivals(2)
        #expect(transport.cancelled == ["/v1/a"])
        transport.answer("/v1/c")
        #expect(await latest.value == nil)
        // Neither cancelled call was sent again; the queued one never was.
        #expect(transport.arrivals == ["/v1/a", "/v1/c"])
        #expect(group.runningCalls == 0)
    }

    @Test func aCallInItsRetryDelayIsCancelledByCancelOthersAndNotRetried() async throws {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("g")
        let clock = TestClock(mode: .manual)
        let client = Self.client(transport, group, retryPolicy: .standard, clock: clock)
        let retrying = Self.start(client, Self.endpoint("/v1/a"))
        await transport.waitForArrivals(1)
        transport.answer("/v1/a", with: .status(503))
        await clock.waitForSleepers(1)
        // Waiting for a retry does not count as running.
        #expect(group.runningCalls == 0)
        let latest = Self.start(client, Self.endpoint("/v1/b", .cancelOthers))
        #expect(await retrying.value == .cancelledByPolicy)
        await transport.waitForArrivals(2)
        transport.answer("/v1/b")
        #expect(await latest.value == nil)
        #expect(transport.arrivals == ["/v1/a", "/v1/b"])
    }

    @Test func waitersStartOneAtATimeHighestPriorityFirst() async throws {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("cart")
        let client = Self.client(transport, group)
        let first = Self.start(client, Self.endpoint("/v1/first"))
        await transport.waitForArrivals(1)
        var waiters: [Task<CourierError.Code?, Never>] = []
        let queue: [(String, ConcurrencyPriority)] = [
            ("low", .low), ("default-1", .default), ("high-1", .high), ("default-2", .default),
            ("high-2", .high),
        ]
        for (index, (name, priority)) in queue.enumerated() {
            waiters.append(Self.start(client, Self.endpoint("/v1/\(name)", .wait(priority: priority))))
            try await waitUntil { group.queuedCalls >= index + 1 }
        }
        transport.answer("/v1/first")
        #expect(await first.value == nil)
        // Each answer lets exactly the next waiter through.
        let expected = ["high-1", "high-2", "default-1", "default-2", "low"]
        for (index, name) in expected.enumerated() {
            await transport.waitForArrivals(index + 2)
            #expect(transport.holding == ["/v1/\(name)"])
            #expect(group.runningCalls == 1)
            transport.answer("/v1/\(name)")
        }
        for waiter in waiters { #expect(await waiter.value == nil) }
        #expect(transport.arrivals == ["/v1/first"] + expected.map { "/v1/\($0)" })
    }

    @Test func aCancelledWaiterLeavesTheQueueAtOnce() async throws {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("g")
        let client = Self.client(transport, group)
        let first = Self.start(client, Self.endpoint("/v1/first"))
        await transport.waitForArrivals(1)
        let doomed = Self.start(client, Self.endpoint("/v1/doomed", .waitUntilAllDone))
        try await waitUntil { group.queuedCalls >= 1 }
        let next = Self.start(client, Self.endpoint("/v1/next", .waitUntilAllDone))
        try await waitUntil { group.queuedCalls >= 2 }
        doomed.cancel()
        #expect(await doomed.value == .cancelled)
        #expect(group.queuedCalls == 1)
        transport.answer("/v1/first")
        await transport.waitForArrivals(2)
        transport.answer("/v1/next")
        #expect(await next.value == nil)
        #expect(await first.value == nil)
        #expect(transport.arrivals == ["/v1/first", "/v1/next"])
    }

    @Test func cancelAllEndsAQueuedCall() async throws {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("g")
        let client = Self.client(transport, group)
        let other = Self.client(transport, group)
        let first = Self.start(other, Self.endpoint("/v1/first"))
        await transport.waitForArrivals(1)
        let queued = Self.start(client, Self.endpoint("/v1/queued", .waitUntilAllDone))
        try await waitUntil { group.queuedCalls >= 1 }
        client.cancelAll()
        #expect(await queued.value == .cancelled)
        #expect(group.queuedCalls == 0)
        transport.answer("/v1/first")
        #expect(await first.value == nil)
    }

    @Test func clientsSharingAGroupSeeEachOther() async {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("shared")
        let one = Self.client(transport, group)
        let two = Self.client(transport, group)
        let running = Self.start(one, Self.endpoint("/v1/a"))
        await transport.waitForArrivals(1)
        let error = await expectFailure(two, Self.endpoint("/v1/b", .ignoreCurrent))
        #expect(error?.code == .ignoredByPolicy)
        transport.answer("/v1/a")
        #expect(await running.value == nil)
    }

    @Test func anEndpointMayNameItsOwnGroup() async {
        let transport = HeldTransport()
        let clientGroup = ConcurrencyGroup("client")
        let own = ConcurrencyGroup("own")
        let client = Self.client(transport, clientGroup)
        let running = Self.start(client, Self.endpoint("/v1/a"))
        await transport.waitForArrivals(1)
        // Not in the client's group: nothing of its own group runs.
        let separate = Self.start(client, Self.endpoint("/v1/b").concurrency(.ignoreCurrent, in: own))
        await transport.waitForArrivals(2)
        #expect(own.runningCalls == 1)
        #expect(clientGroup.runningCalls == 1)
        transport.answer("/v1/a")
        transport.answer("/v1/b")
        #expect(await running.value == nil)
        #expect(await separate.value == nil)
    }

    @Test func aPolicyWithoutAGroupIsAnInvalidRequest() async {
        let client = APIClient(transport: StubTransport.immediate(.json("{}")))
        let error = await expectFailure(client, Self.endpoint("/v1/a", .ignoreCurrent))
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("ignoreCurrent") == true)
    }

    @Test func retriesAskThePolicyAgain() async throws {
        // A retry is queued behind a call that started during the retry delay.
        let transport = HeldTransport()
        let group = ConcurrencyGroup("g")
        let clock = TestClock(mode: .manual)
        let client = Self.client(transport, group, retryPolicy: .standard, clock: clock)
        let retrying = Self.start(client, Self.endpoint("/v1/a", .waitUntilAllDone))
        await transport.waitForArrivals(1)
        transport.answer("/v1/a", with: .status(503))
        await clock.waitForSleepers(1)
        let other = Self.start(client, Self.endpoint("/v1/b"))
        await transport.waitForArrivals(2)
        clock.advance(by: .seconds(60))
        try await waitUntil { group.queuedCalls >= 1 }
        #expect(transport.holding == ["/v1/b"])
        transport.answer("/v1/b")
        await transport.waitForArrivals(3)
        transport.answer("/v1/a")
        #expect(await retrying.value == nil)
        #expect(await other.value == nil)
        #expect(transport.arrivals == ["/v1/a", "/v1/b", "/v1/a"])
    }
}
