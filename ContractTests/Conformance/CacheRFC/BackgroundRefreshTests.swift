import CourierCache
import CourierCore
import CourierMockServer
import CourierPlugins
import CourierTesting
import Foundation
import HTTPTypes
import MetricsTestKit
import Synchronization
import Testing

/// A refresh the cache starts in the background (`stale-while-revalidate`)
/// that fails is seen: by `MetricsPlugin`'s counter, by the cache's
/// statistics and events — over every transport, against courier-mock.
struct BackgroundRefreshTests {
    @Test(arguments: TransportKind.allCases)
    func aFailedRefreshIsCountedAndTold(kind: TransportKind) async throws {
        let stub = CacheLab.Stub(
            "x/refresh",
            [(200, ["Cache-Control": "max-age=60, stale-while-revalidate=600"], "v1"), (500, [:], "")])
        let document = try JSONSerialization.data(withJSONObject: ["mappings": [stub.json]])
        let stubs = try ContractLoader.parse(Array(document), file: "<refresh>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let clock = TestClock(startDate: HTTPDate.parse(CacheLab.date) ?? Date(timeIntervalSince1970: 0))
            let failures = Failures()
            let cache = ResponseCache(
                clock: clock, onEvent: { event in if case .refreshFailed = event.outcome { failures.add() } })
            let metrics = TestMetrics()
            var configuration = APIClient.Configuration(
                transport: kind.transport, plugins: [MetricsPlugin(factory: metrics)], clock: clock)
            configuration.cache = cache
            configuration.timeout = hangGuard
            let client = APIClient(configuration: configuration)
            let endpoint = Endpoint<RawResponse>(
                .get("x/refresh"), on: Node("lab", baseURL: "http://127.0.0.1:\(server.port)")
            ).cache(.http)
            _ = try await client.send(endpoint)
            clock.advance(by: .seconds(100))
            let stale = try await client.response(endpoint)
            #expect(stale.attempts == 0)
            await cache.settle()
            #expect(server.journal.entries.count == 2)
            #expect(cache.statistics.backgroundRefreshFailures == 1)
            #expect(failures.count == 1)
            let counter = try metrics.expectCounter(
                "courier_background_refreshes_total", [("endpoint", "GET x/refresh"), ("outcome", "status")])
            #expect(counter.totalValue == 1)
        }
    }

    final class Failures: Sendable {
        private let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }
}
