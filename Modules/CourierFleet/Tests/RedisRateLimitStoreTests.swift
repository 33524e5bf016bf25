@_spi(Locking) import CourierCore
import CourierFleet
import CourierRedis
import CourierResilience
import CourierTesting
import Foundation
import Testing

/// The rate limiter's state on a real `redis-server`, shared by two
/// `FleetState`s — two instances, each with its own connection and thread
/// — and the share each keeps when Redis is away. Limits are counted in
/// hours, so that no test depends on how fast a loaded machine runs it.
@Suite struct RedisRateLimitStoreTests {
    static func fleet(_ port: Int, instances: Int = 2) -> FleetState {
        FleetState(
            .init(
                endpoint: .tcp(host: "127.0.0.1", port: port), namespace: "fleet-tests",
                expectedInstances: instances, commandTimeout: .seconds(10)))
    }

    /// Four an hour, all four at once: an interval of 15 minutes.
    static let limit = RateLimit(requests: 4, per: .seconds(3_600))

    @Test func twoInstancesShareOneRate() async throws {
        try await withRedis { server in
            let one = RedisRateLimitStore(Self.fleet(server.port))
            let other = RedisRateLimitStore(Self.fleet(server.port))
            var decisions: [RateLimitDecision] = []
            for store in [one, other, one, other] {
                decisions.append(await store.reserve("api.example.com", limit: Self.limit, maxWait: .zero))
            }
            #expect(decisions.allSatisfy { $0 == .go(after: .zero) })
            // The fifth, on either instance, must wait about 15 minutes.
            for store in [one, other] {
                guard
                    case .limited(let retryAfter) = await store.reserve(
                        "api.example.com", limit: Self.limit, maxWait: .zero)
                else {
                    Issue.record("a fifth request went")
                    continue
                }
                #expect(retryAfter > .seconds(14 * 60) && retryAfter <= .seconds(15 * 60))
            }
            // Another key has a rate of its own.
            #expect(
                await one.reserve("other.example.com", limit: Self.limit, maxWait: .zero) == .go(after: .zero)
            )
        }
    }

    @Test func aPauseOneInstanceLearnsHoldsForTheOther() async throws {
        try await withRedis { server in
            let one = RedisRateLimitStore(Self.fleet(server.port))
            let other = RedisRateLimitStore(Self.fleet(server.port))
            await one.pause("api.example.com", for: .seconds(3_600))
            guard
                case .limited(let retryAfter) = await other.reserve(
                    "api.example.com", limit: nil, maxWait: .zero)
            else {
                Issue.record("the other instance went during the pause")
                return
            }
            #expect(retryAfter > .seconds(59 * 60))
        }
    }

    /// Redis gone: each instance decides alone with its share (8 an hour
    /// across 4 instances: 2 each), and says so.
    @Test func withoutRedisEachInstanceKeepsItsShare() async throws {
        let port = try await withRedis { server in server.port }  // a port nothing listens on any more
        let fleet = Self.fleet(port, instances: 4)
        let store = RedisRateLimitStore(fleet, clock: TestClock(mode: .manual))
        let limit = RateLimit(requests: 8, per: .seconds(3_600))
        var decisions: [RateLimitDecision] = []
        for _ in 0..<3 {
            decisions.append(await store.reserve("api.example.com", limit: limit, maxWait: .zero))
        }
        #expect(Array(decisions.prefix(2)) == [.go(after: .zero), .go(after: .zero)])
        guard case .limited = decisions[2] else {
            Issue.record("a third request went: \(decisions)")
            return
        }
        #expect(!fleet.isShared)
    }

    /// Redis killed mid-run: decisions go on alone; a server back on the
    /// same port is used again after the reconnect delay.
    @Test func aRedisThatDiesMidRunNeverStopsADecision() async throws {
        let server = try await RedisTestServer.start()
        let fleet = Self.fleet(server.port)
        let store = RedisRateLimitStore(fleet)
        #expect(await store.reserve("k", limit: Self.limit, maxWait: .zero) == .go(after: .zero))
        #expect(fleet.isShared)
        await server.stop()
        // Alone: this instance's share of 4 is 2, one of them left.
        #expect(await store.reserve("k", limit: Self.limit, maxWait: .zero) == .go(after: .zero))
        #expect(!fleet.isShared)
    }

    /// Records what a fleet tells its monitors.
    final class Monitor: FleetMonitor {
        let events = Locked<[FleetEvent]>([])
        func fleetEvent(_ event: FleetEvent) { events.withLock { $0.append(event) } }
        var kinds: [String] {
            events.withLock { $0 }.map { if case .fellBack = $0 { "fellBack" } else { "returned" } }
        }
    }

    /// Monitors are told once when the instance falls back (not once per
    /// decision made alone) and once when it returns.
    @Test func monitorsSeeTheFallbackAndTheReturn() async throws {
        let server = try await RedisTestServer.start()
        let monitor = Monitor()
        let fleet = FleetState(
            .init(
                endpoint: .tcp(host: "127.0.0.1", port: server.port), namespace: "fleet-tests",
                expectedInstances: 2, commandTimeout: .seconds(10), reconnectDelay: .zero, monitors: [monitor]
            ))
        let store = RedisRateLimitStore(fleet)
        _ = await store.reserve("m", limit: Self.limit, maxWait: .zero)
        #expect(monitor.kinds.isEmpty)
        await server.kill()
        _ = await store.reserve("m", limit: Self.limit, maxWait: .zero)
        _ = await store.reserve("m", limit: Self.limit, maxWait: .zero)
        #expect(monitor.kinds == ["fellBack"])
        try await server.launch()
        _ = await store.reserve("m", limit: Self.limit, maxWait: .zero)
        #expect(monitor.kinds == ["fellBack", "returned"])
        #expect(fleet.isShared)
        await server.stop()
    }
}
