import CourierRedis
import Logging
import Metrics

/// What the store tells people about the server: one warning when it goes
/// down, one notice when it is back, a failure count and an up gauge.
struct RedisHealth: RedisHealthObserver {
    let configuration: RedisStore.Configuration
    let failures: Counter
    let up: Gauge

    init(_ configuration: RedisStore.Configuration, namespace: String) {
        self.configuration = configuration
        let dimensions = [("namespace", namespace)]
        failures = Counter(
            label: "courier_cache_shared_failures", dimensions: dimensions,
            factory: configuration.metricsFactory)
        up = Gauge(
            label: "courier_cache_shared_up", dimensions: dimensions, factory: configuration.metricsFactory)
    }

    func connected() { up.record(1) }
    func failed() { failures.increment() }

    func wentDown(reason: String) {
        configuration.logger.warning(
            "the shared cache is unavailable; serving from memory until it is back",
            metadata: ["endpoint": "\(configuration.endpoint)", "reason": "\(reason)"])
        up.record(0)
    }

    func recovered() {
        configuration.logger.notice(
            "the shared cache is back", metadata: ["endpoint": "\(configuration.endpoint)"])
    }
}
