@_spi(Locking) import CourierCore
import CourierResilience
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// The circuit breaker through the pipeline: what reaches the transport,
/// what the refused calls say, how probes close or reopen a circuit. The
/// breaker's `TestClock` moves only when a test moves it.
struct CircuitBreakerTests {
    /// A transport answering by path: `/v1/down…` 503, `/v1/missing` 404, the rest 200.
    final class Server: Sendable {
        let requests = Locked<[String]>([])
        let healthy = Locked(false)

        var transport: StubTransport {
            StubTransport { [self] request in
                let path = request.head.path ?? ""
                requests.withLock { $0.append(path) }
                if path.hasPrefix("/v1/down") { return healthy.withLock { $0 } ? .json("{}") : .status(503) }
                return path == "/v1/missing" ? .status(404) : .json("{}")
            }
        }
    }

    static let origin = "https://api.example.com"

    static func breaker(_ clock: TestClock, probes: Int = 1) -> CircuitBreaker {
        CircuitBreaker(
            .init(
                failureRateThreshold: 0.5, minimumCalls: 4, window: .seconds(30), openDuration: .seconds(30),
                halfOpenProbes: probes),
            clock: clock)
    }

    static func client(_ server: Server, _ breaker: CircuitBreaker) -> APIClient {
        var configuration = APIClient.Configuration(transport: server.transport, clock: TestClock())
        configuration.circuitBreaker = breaker
        return APIClient(configuration: configuration)
    }

    static func call(_ client: APIClient, _ path: String) async -> CourierError? {
        await expectFailure(client, Endpoint<RawResponse>(.get(RoutePath(escaped: path)), on: .api))
    }

    @Test func aFailingOriginOpensItsCircuitAndNothingMoreIsSent() async throws {
        let server = Server()
        let clock = TestClock(mode: .manual)
        let breaker = Self.breaker(clock)
        let client = Self.client(server, breaker)
        for _ in 0..<4 { #expect(await Self.call(client, "down")?.code == .status) }
        #expect(server.requests.withLock { $0.count } == 4)
        clock.advance(by: .seconds(10))
        let refused = try #require(await Self.call(client, "down"))
        #expect(refused.code == .circuitOpen)
        #expect(refused.message.contains("open for 20.0 seconds more"))
        let why = try #require(refused.underlying as? CircuitOpenError)
        #expect(why.origin == "https://api.example.com")
        #expect(why.until == clock.date.addingTimeInterval(20))
        #expect(
            breaker.state(of: Self.origin) == .open(until: clock.date.addingTimeInterval(20)))
        // Nothing was sent, to any path of that origin.
        #expect(await Self.call(client, "other")?.code == .circuitOpen)
        #expect(server.requests.withLock { $0.count } == 4)
    }

    @Test func answersThatAreNotTheServerFailingKeepItClosed() async {
        let server = Server()
        let breaker = Self.breaker(TestClock(mode: .manual))
        let client = Self.client(server, breaker)
        for _ in 0..<10 { #expect(await Self.call(client, "missing")?.code == .status) }
        #expect(breaker.state(of: Self.origin) == .closed)
        // Below the failure rate: 3 failures of 13 outcomes.
        for _ in 0..<3 { _ = await Self.call(client, "down") }
        #expect(breaker.state(of: Self.origin) == .closed)
    }

    /// A circuit opened by four 503s, its open time over.
    static func dueForAProbe() async -> (Server, TestClock, CircuitBreaker, APIClient) {
        let server = Server()
        let clock = TestClock(mode: .manual)
        let breaker = Self.breaker(clock)
        let client = Self.client(server, breaker)
        for _ in 0..<4 { _ = await Self.call(client, "down") }
        clock.advance(by: .seconds(30))
        return (server, clock, breaker, client)
    }

    @Test func aProbeThatSucceedsClosesTheCircuit() async throws {
        let (server, _, breaker, client) = await Self.dueForAProbe()
        #expect(breaker.state(of: Self.origin) == .halfOpen)
        server.healthy.withLock { $0 = true }
        #expect(await Self.call(client, "down") == nil)  // the probe
        #expect(breaker.state(of: Self.origin) == .closed)
        #expect(await Self.call(client, "down") == nil)
        #expect(server.requests.withLock { $0.count } == 6)
    }

    @Test func aProbeThatFailsOpensItAgain() async {
        let (server, clock, breaker, client) = await Self.dueForAProbe()
        #expect(await Self.call(client, "down")?.code == .status)  // the probe fails
        #expect(
            breaker.state(of: Self.origin) == .open(until: clock.date.addingTimeInterval(30)))
        #expect(await Self.call(client, "down")?.code == .circuitOpen)
        #expect(server.requests.withLock { $0.count } == 5)
    }

    /// A circuit opened by four 503s through a `HeldTransport`, then half-open.
    static func halfOpen() async -> (HeldTransport, CircuitBreaker, APIClient, Endpoint<RawResponse>) {
        let transport = HeldTransport()
        let clock = TestClock(mode: .manual)
        let breaker = Self.breaker(clock)
        var configuration = APIClient.Configuration(transport: transport, clock: TestClock())
        configuration.circuitBreaker = breaker
        let client = APIClient(configuration: configuration)
        let endpoint = Endpoint<RawResponse>(.get("a"), on: .api)
        for index in 1...4 {
            let call = Task { await expectFailure(client, endpoint) }
            await transport.waitForArrivals(index)
            transport.answer("/v1/a", with: .status(503))
            _ = await call.value
        }
        clock.advance(by: .seconds(30))
        return (transport, breaker, client, endpoint)
    }

    @Test func halfOpenLetsOnlyItsProbesThrough() async throws {
        let (transport, breaker, client, endpoint) = await Self.halfOpen()
        let probe = Task { await expectFailure(client, endpoint) }
        await transport.waitForArrivals(5)
        // While the probe runs, every other attempt is refused, saying why.
        let refused = await expectFailure(client, endpoint)
        #expect(refused?.code == .circuitOpen)
        #expect(refused?.message.contains("half-open") == true)
        #expect((refused?.underlying as? CircuitOpenError)?.until == nil)
        transport.answer("/v1/a")
        #expect(await probe.value == nil)
        #expect(breaker.state(of: Self.origin) == .closed)
    }

    @Test func aCancelledProbeGivesItsPlaceBack() async throws {
        let (transport, breaker, client, endpoint) = await Self.halfOpen()
        let probe = Task { await expectFailure(client, endpoint) }
        await transport.waitForArrivals(5)
        probe.cancel()
        #expect(await probe.value?.code == .cancelled)
        // No verdict: the next attempt is the probe.
        let next = Task { await expectFailure(client, endpoint) }
        await transport.waitForArrivals(6)
        transport.answer("/v1/a")
        #expect(await next.value == nil)
        #expect(breaker.state(of: Self.origin) == .closed)
    }

    @Test func originsHaveCircuitsOfTheirOwn() async {
        let server = Server()
        let breaker = Self.breaker(TestClock(mode: .manual))
        let client = Self.client(server, breaker)
        // The rate counts once enough calls ended: three are not enough.
        for _ in 0..<3 { _ = await Self.call(client, "down") }
        #expect(breaker.state(of: Self.origin) == .closed)
        _ = await Self.call(client, "down")
        #expect(breaker.state(of: Self.origin) != .closed)
        let elsewhere = Node("other", baseURL: "https://other.example.com/v1")
        #expect(await expectFailure(client, Endpoint<RawResponse>(.get("fine"), on: elsewhere)) == nil)
        #expect(breaker.state(of: "https://other.example.com") == .closed)
    }

    @Test func theRetryPolicyDoesNotRetryAnOpenCircuit() async {
        let server = Server()
        let clock = TestClock(mode: .manual)
        let breaker = Self.breaker(clock)
        var configuration = APIClient.Configuration(
            transport: server.transport, retryPolicy: RetryPolicy(maxAttempts: 10, jitter: .none),
            clock: TestClock())
        configuration.circuitBreaker = breaker
        let client = APIClient(configuration: configuration)
        // Attempts 1–4 fail with 503 and open the circuit; attempt 5 meets it and the call stops.
        let error = await Self.call(client, "down")
        #expect(error?.code == .circuitOpen)
        #expect(error?.attempt == 5)
        #expect(server.requests.withLock { $0.count } == 4)
    }
}
