import CourierCache
import CourierCore
import CourierPlugins
import MetricsTestKit
import NIOConcurrencyHelpers
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
        let failures = Failures()
        let metrics = TestMetrics()
        let onEvent: @Sendable (CacheEvent) -> Void = { event in
            if case .refreshFailed = event.outcome { failures.add() }
        }
        try await CacheLab.run(
            [stub], over: kind, plugins: [MetricsPlugin(factory: metrics)], onEvent: onEvent
        ) {
            lab in
            _ = try await lab.get("x/refresh")
            lab.advance(100)
            #expect(try await lab.get("x/refresh").stored)
            await lab.cache.settle()
            #expect(lab.requests("x/refresh").count == 2)
            #expect(lab.cache.statistics.backgroundRefreshFailures == 1)
            #expect(failures.count == 1)
            let counter = try metrics.expectCounter(
                "courier_background_refreshes_total", [("endpoint", "GET x/refresh"), ("outcome", "status")])
            #expect(counter.totalValue == 1)
        }
    }

    final class Failures: Sendable {
        private let value = NIOLockedValueBox(0)
        func add() { value.withLockedValue { $0 += 1 } }
        var count: Int { value.withLockedValue { $0 } }
    }
}
