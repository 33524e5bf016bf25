@_spi(Locking) import CourierCore
import CourierResilience
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// The client-side rate limiter through the pipeline, on a `TestClock`:
/// its own limit (wait or fail), and the pauses a server announces, shared
/// by every caller of the key and kept apart between keys.
struct RateLimiterTests {
    /// Counts requests per `Authorization`; answers `answer` for each.
    final class Server: Sendable {
        let requests = Locked<[String]>([])
        let answer: @Sendable (Int) -> StubOutcome
        init(_ answer: @escaping @Sendable (Int) -> StubOutcome = { _ in .json("{}") }) {
            self.answer = answer
        }
        var count: Int { requests.withLock { $0.count } }
        var transport: StubTransport {
            StubTransport { [self] request in
                let number = requests.withLock {
                    $0.append(request.head.headerFields[.authorization] ?? "-")
                    return $0.count
                }
                return answer(number)
            }
        }
    }

    static func client(_ server: Server, _ limiter: RateLimiter, clock: TestClock) -> APIClient {
        var configuration = APIClient.Configuration(transport: server.transport, clock: clock)
        configuration.rateLimiter = limiter
        return APIClient(configuration: configuration)
    }

    static let endpoint = Endpoint<RawResponse>(.get("x"), on: .api)

    @Test func overTheLimitFailsAtOnceWithWhenToTryAgain() async throws {
        let clock = TestClock(mode: .manual)
        let server = Server()
        let limiter = RateLimiter(
            RateLimit(requests: 2, per: .seconds(1)), whenLimited: .fail,
            store: LocalRateLimitStore(clock: clock))
        let client = Self.client(server, limiter, clock: clock)
        _ = try await client.send(Self.endpoint)
        _ = try await client.send(Self.endpoint)
        let error = try #require(await expectFailure(client, Self.endpoint))
        #expect(error.code == .rateLimited)
        let why = try #require(error.underlying as? RateLimitedError)
        #expect(why.retryAfter == .milliseconds(500))
        #expect(why.key == "https://api.example.com")
        #expect(server.count == 2)
        clock.advance(by: .milliseconds(500))
        _ = try await client.send(Self.endpoint)
        #expect(server.count == 3)
    }

    @Test func overTheLimitWaitsForItsTurn() async throws {
        let clock = TestClock()
        let server = Server()
        let limiter = RateLimiter(
            RateLimit(requests: 4, per: .seconds(1), burst: 1), store: LocalRateLimitStore(clock: clock))
        let client = Self.client(server, limiter, clock: clock)
        let start = clock.now
        for _ in 0..<4 { _ = try await client.send(Self.endpoint) }
        #expect(server.count == 4)
        // Spaced 250 ms apart: the fourth went 750 ms after the first.
        #expect(clock.now - start == .milliseconds(750))
    }

    @Test func aWaitLongerThanTheDeadlineFailsAtOnce() async throws {
        let clock = TestClock(mode: .manual)
        let server = Server()
        let limiter = RateLimiter(
            RateLimit(requests: 1, per: .seconds(60)), store: LocalRateLimitStore(clock: clock))
        var configuration = APIClient.Configuration(
            transport: server.transport, timeout: .seconds(5), clock: clock)
        configuration.rateLimiter = limiter
        let client = APIClient(configuration: configuration)
        _ = try await client.send(Self.endpoint)
        let error = await expectFailure(client, Self.endpoint)
        #expect(error?.code == .rateLimited)
        #expect((error?.underlying as? RateLimitedError)?.retryAfter == .seconds(60))
        #expect(server.count == 1)
    }

    /// A 429 with `Retry-After` pauses the key for every caller; a
    /// principal's pause is its own.
    @Test func aServersPauseHoldsForEveryCallerOfTheKeyOnly() async throws {
        let clock = TestClock(mode: .manual)
        let server = Server { number in
            number == 1 ? .status(429, headers: [.retryAfter: "30"]) : .json("{}")
        }
        let limiter = RateLimiter(
            nil, per: .principal, whenLimited: .fail, store: LocalRateLimitStore(clock: clock))
        let client = Self.client(server, limiter, clock: clock)
        let alice = Self.endpoint.adding(headers: [.authorization: "Bearer alice"])
        let bob = Self.endpoint.adding(headers: [.authorization: "Bearer bob"])
        #expect(await expectFailure(client, alice)?.code == .status)
        let paused = await expectFailure(client, alice)
        #expect(paused?.code == .rateLimited)
        #expect((paused?.underlying as? RateLimitedError)?.retryAfter == .seconds(30))
        #expect((paused?.underlying as? RateLimitedError)?.key.contains("alice") == false)
        _ = try await client.send(bob)
        #expect(server.requests.withLock { $0 } == ["Bearer alice", "Bearer bob"])
        clock.advance(by: .seconds(30))
        _ = try await client.send(alice)
        #expect(server.count == 3)
    }

    /// An exhausted quota announced on a success pauses the key too.
    @Test func anExhaustedQuotaPausesUntilItsReset() async throws {
        let clock = TestClock(mode: .manual)
        let server = Server { _ in
            .json("{}", headers: [HTTPField.Name("RateLimit")!: #""default";r=0;t=12"#])
        }
        let limiter = RateLimiter(nil, whenLimited: .fail, store: LocalRateLimitStore(clock: clock))
        let client = Self.client(server, limiter, clock: clock)
        _ = try await client.send(Self.endpoint)
        let error = await expectFailure(client, Self.endpoint)
        #expect((error?.underlying as? RateLimitedError)?.retryAfter == .seconds(12))
    }

    @Test func gcraLetsABurstGoThenSpacesRequests() {
        let store = LocalRateLimitStore(clock: TestClock(mode: .manual))
        let limit = RateLimit(requests: 10, per: .seconds(1), burst: 3)
        let decisions = (0..<5).map { _ in store.reserve("k", limit: limit, maxWait: .zero) }
        #expect(
            decisions == [
                .go(after: .zero), .go(after: .zero), .go(after: .zero),
                .limited(retryAfter: .milliseconds(100)),
                .limited(retryAfter: .milliseconds(100)),
            ])
        // A wait that is allowed reserves the place: the next is further back.
        #expect(store.reserve("k", limit: limit, maxWait: .seconds(1)) == .go(after: .milliseconds(100)))
        #expect(store.reserve("k", limit: limit, maxWait: .zero) == .limited(retryAfter: .milliseconds(200)))
        #expect(store.reserve("other", limit: limit, maxWait: .zero) == .go(after: .zero))
    }

    @Test(
        arguments: [
            (429, ["Retry-After": "7"], 7_000),
            (503, ["Retry-After": "Tue, 14 Nov 2023 22:13:40 GMT"], 20_000),
            (200, ["RateLimit": "limit=100, remaining=0, reset=5"], 5_000),
            (200, ["RateLimit": #""default";r=3;t=5"#], nil),
            (200, ["RateLimit-Remaining": "0", "RateLimit-Reset": "9"], 9_000),
            (200, ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000042"], 42_000),
            (200, ["X-RateLimit-Remaining": "1", "X-RateLimit-Reset": "60"], nil),
            (429, [:], 1_000),
            (200, ["Retry-After": "7"], nil),
        ] as [(Int, [String: String], Int?)])
    func whatAResponseAnnounces(status: Int, fields: [String: String], milliseconds: Int?) {
        var headers = HTTPFields()
        for (name, value) in fields { headers[HTTPField.Name(name)!] = value }
        let response = HTTPResponse(status: .init(code: status), headerFields: headers)
        let pause = RateLimitAnnouncement.pause(in: response, now: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(pause == milliseconds.map { .milliseconds($0) })
    }
}
