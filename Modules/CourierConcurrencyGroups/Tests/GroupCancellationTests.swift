import CourierConcurrencyGroups
import CourierCore
import CourierStreamFormats
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// Ending calls together (XZKit's `APIGroup`): a whole group, whichever
/// client made its calls; the calls carrying a tag, whichever group they
/// are in. A ``HeldTransport`` holds each request until the test answers
/// it, so which calls are on the network is exact and no test waits on time.
struct GroupCancellationTests {
    typealias Fixture = ConcurrencyGroupTests

    @Test func cancelAllEndsRunningQueuedAndRetryingCallsOfEveryClient() async throws {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("cart")
        let clock = TestClock(mode: .manual)
        let retryEverything = RetryPolicy(maxAttempts: 5, retryIf: { _ in true })
        let first = Fixture.client(transport, group, retryPolicy: retryEverything, clock: clock)
        let second = Fixture.client(transport, group, retryPolicy: retryEverything, clock: clock)
        // One call waits for a retry, one runs (another client's), one is queued behind it.
        let retrying = Fixture.start(first, Fixture.endpoint("/v1/retrying"))
        await transport.waitForArrivals(1)
        transport.answer("/v1/retrying", with: .status(503))
        await clock.waitForSleepers(1)
        let running = Fixture.start(second, Fixture.endpoint("/v1/running"))
        await transport.waitForArrivals(2)
        let queued = Fixture.start(first, Fixture.endpoint("/v1/queued", .waitUntilAllDone))
        try await waitUntil { group.queuedCalls >= 1 }

        group.cancelAll()

        #expect(await retrying.value == .cancelled)
        #expect(await running.value == .cancelled)
        #expect(await queued.value == .cancelled)
        #expect(transport.cancelled == ["/v1/running"])
        #expect(group.runningCalls == 0 && group.queuedCalls == 0)
        // Nothing was sent again, the queued call never was.
        clock.advance(by: .seconds(60))
        #expect(transport.arrivals == ["/v1/retrying", "/v1/running"])
        // A call that joins afterwards runs.
        let later = Fixture.start(first, Fixture.endpoint("/v1/later"))
        await transport.waitForArrivals(3)
        transport.answer("/v1/later")
        #expect(await later.value == nil)
    }

    @Test func theErrorSaysWhoEndedTheCall() async throws {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("cart")
        let client = Fixture.client(transport, group)
        let running = Task { await expectFailure(client, Fixture.endpoint("/v1/a")) }
        // The second call starts once the first runs: started together, it
        // could run first (nothing to wait for) and never be queued.
        await transport.waitForArrivals(1)
        let queued = Task { await expectFailure(client, Fixture.endpoint("/v1/b", .waitUntilAllDone)) }
        try await waitUntil { group.queuedCalls >= 1 }
        group.cancelAll()
        for call in [running, queued] {
            let error = await call.value
            #expect(error?.code == .cancelled)
            #expect(error?.message == "cancelled by ConcurrencyGroup(\"cart\").cancelAll()")
        }
    }

    @Test func aGroupCancelsOnlyTheCallsWithTheTag() async throws {
        let transport = HeldTransport()
        let group = ConcurrencyGroup("g")
        let client = Fixture.client(transport, group)
        let tagged = Fixture.start(client, Fixture.endpoint("/v1/detail").tagged("product-screen"))
        let other = Fixture.start(client, Fixture.endpoint("/v1/feed").tagged("home"))
        await transport.waitForArrivals(2)
        group.cancelAll(tagged: "product-screen")
        #expect(await tagged.value == .cancelled)
        #expect(transport.holding == ["/v1/feed"])
        transport.answer("/v1/feed")
        #expect(await other.value == nil)
    }

    @Test func aClientCancelsItsTaggedCallsAcrossGroups() async throws {
        let transport = HeldTransport()
        let cart = ConcurrencyGroup("cart")
        let search = ConcurrencyGroup("search")
        let client = APIClient(configuration: .init(transport: transport, clock: TestClock()))
        let inCart = Fixture.endpoint("/v1/cart").concurrency(.default, in: cart).tagged("checkout")
        let inSearch = Fixture.endpoint("/v1/search").concurrency(.default, in: search).tagged("checkout")
        let untagged = Fixture.endpoint("/v1/cart-count").concurrency(.default, in: cart)
        let calls = [inCart, inSearch, untagged].map { Fixture.start(client, $0) }
        await transport.waitForArrivals(3)
        // Another client's call with the same tag is its own business.
        let otherClient = APIClient(configuration: .init(transport: transport, clock: TestClock()))
        let others = Fixture.start(
            otherClient, Endpoint<RawResponse>(.get("elsewhere"), on: .api).tagged("checkout"))
        await transport.waitForArrivals(4)

        client.cancelAll(tagged: "checkout")

        #expect(await calls[0].value == .cancelled)
        #expect(await calls[1].value == .cancelled)
        #expect(Set(transport.cancelled) == ["/v1/cart", "/v1/search"])
        #expect(Set(transport.holding) == ["/v1/cart-count", "/v1/elsewhere"])
        transport.answer("/v1/cart-count")
        transport.answer("/v1/elsewhere")
        #expect(await calls[2].value == nil)
        #expect(await others.value == nil)
        #expect(cart.runningCalls == 0 && search.runningCalls == 0)
    }

    @Test func anEndpointsTagsAddUp() {
        let endpoint = Fixture.endpoint("/v1/a").tagged("a", "b").tagged("c")
        #expect(endpoint.tags == ["a", "b", "c"])
    }

    @Test func aStreamRunsInItsGroupUntilItsBodyEnds() async throws {
        let gate = TestGate()
        let transport = ScriptedStreamTransport { request, _ in
            request.head.path == "/v1/feed"
                ? .stream(.ndjson, [.text("{\"n\":1}\n"), .wait(gate), .text("{\"n\":2}\n")])
                : .stream(.ndjson, [.text("{\"n\":3}\n")])
        }
        let group = ConcurrencyGroup("feeds")
        var configuration = APIClient.Configuration(transport: transport, clock: TestClock())
        configuration.concurrencyGroup = group
        let client = APIClient(configuration: configuration)
        let reply = try await client.stream(Endpoint<RawResponse>(.get("feed"), on: .api))
        var body = reply.body.makeAsyncIterator()
        #expect(try await body.next() == Array("{\"n\":1}\n".utf8))
        // The head is in and the body open: the stream still runs.
        #expect(group.runningCalls == 1)
        let next = Task {
            try await client.stream(
                Endpoint<RawResponse>(.get("next"), on: .api).concurrency(.waitUntilAllDone))
        }
        // Queued, or (were the stream no longer counted) connected at once.
        try await waitUntil { group.queuedCalls >= 1 || transport.connections.count >= 2 }
        #expect(transport.connections.count == 1)
        // The body ends: the queued stream starts.
        gate.open()
        #expect(try await body.next() == Array("{\"n\":2}\n".utf8))
        #expect(try await body.next() == nil)
        let second = try await next.value
        #expect(transport.connections.map(\.head.path) == ["/v1/feed", "/v1/next"])
        var rest: [UInt8] = []
        for try await chunk in second.body { rest += chunk }
        #expect(rest == Array("{\"n\":3}\n".utf8))
        #expect(group.runningCalls == 0)
    }

    @Test func aCancelledStreamLeavesItsGroup() async throws {
        let transport = ScriptedStreamTransport { _, _ in .stream(.ndjson, [.text("{}\n"), .hang]) }
        let group = ConcurrencyGroup("feeds")
        var configuration = APIClient.Configuration(transport: transport, clock: TestClock())
        configuration.concurrencyGroup = group
        let client = APIClient(configuration: configuration)
        let reply = try await client.stream(Endpoint<RawResponse>(.get("feed"), on: .api))
        #expect(group.runningCalls == 1)
        reply.body.cancel()
        var body = reply.body.makeAsyncIterator()
        await #expect(throws: CourierError.self) { while try await body.next() != nil {} }
        #expect(group.runningCalls == 0)
    }
}
