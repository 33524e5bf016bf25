@_spi(Locking) import CourierCore
import CourierFleet
import CourierResilience
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// A circuit breaker shared by two instances on a real `redis-server`: the
/// failures of one open the circuit for the other, which then refuses
/// without sending. Windows and open durations are an hour long, so that
/// no test depends on how fast the machine runs.
struct FleetCircuitTests {
    final class Origin: Sendable {
        let requests = Locked(0)
        var count: Int { requests.withLock { $0 } }
        var transport: StubTransport {
            StubTransport { [self] _ in
                requests.withLock { $0 += 1 }
                return .status(503)
            }
        }
    }

    static func client(_ port: Int, _ origin: Origin) -> APIClient {
        let fleet = FleetState(
            .init(
                endpoint: .tcp(host: "127.0.0.1", port: port), namespace: "circuit-tests",
                expectedInstances: 2,
                commandTimeout: .seconds(10)))
        var configuration = APIClient.Configuration(transport: origin.transport, clock: TestClock())
        configuration.circuitBreaker = CircuitBreaker(
            .init(
                failureRateThreshold: 0.5, minimumCalls: 4, window: .seconds(3_600),
                openDuration: .seconds(3_600)),
            fleet: fleet, clock: TestClock(mode: .manual))
        return APIClient(configuration: configuration)
    }

    @Test func oneInstancesFailuresOpenTheCircuitForTheOther() async throws {
        try await withRedis { server in
            let first = Origin()
            let second = Origin()
            let one = Self.client(server.port, first)
            let other = Self.client(server.port, second)
            let endpoint = Endpoint<RawResponse>(.get("x"), on: .api)
            // Two failures each: four for the fleet, the threshold crossed —
            // though neither instance alone reached its minimum of four.
            for client in [one, other, one, other] {
                #expect(await expectFailure(client, endpoint)?.code == .status)
            }
            // Outcomes are posted without waiting: the next command on each
            // connection goes after them, so this sees the fleet's verdict.
            let refused = await expectFailure(other, endpoint)
            #expect(refused?.code == .circuitOpen)
            #expect(await expectFailure(one, endpoint)?.code == .circuitOpen)
            #expect(first.count == 2)
            #expect(second.count == 2)
        }
    }

    /// Without Redis the breaker is each instance's own, as an unshared one.
    @Test func withoutRedisEachBreakerDecidesAlone() async throws {
        let port = try await withRedis { server in server.port }
        let origin = Origin()
        let client = Self.client(port, origin)
        let endpoint = Endpoint<RawResponse>(.get("x"), on: .api)
        for _ in 0..<4 { #expect(await expectFailure(client, endpoint)?.code == .status) }
        #expect(await expectFailure(client, endpoint)?.code == .circuitOpen)
        #expect(origin.count == 4)
    }
}
