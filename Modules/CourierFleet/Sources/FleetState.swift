@_spi(Locking) import CourierCore
public import CourierRedis
public import Logging
public import Metrics
import Synchronization

/// Where the instances of a fleet keep what they share — rates, circuits,
/// retry budgets — on one Redis, reached from each process through one
/// thread of its own (hiredis blocks; the concurrency pool never does).
///
/// A Redis that is down or slow never stops a call: a command waits at most
/// ``Configuration/commandTimeout`` (50 ms by default, never the call's
/// whole budget), and while the server is away each instance decides alone
/// with its share of every limit (the limit ÷
/// ``Configuration/expectedInstances``), logging one warning when it goes
/// and one notice when it is back (and telling its ``FleetMonitor``s),
/// counting each decision made alone.
///
/// ```swift
/// let fleet = FleetState(.init(endpoint: .tcp(host: "redis.internal"), namespace: "shop-api", expectedInstances: 20))
/// configuration.rateLimiter = RateLimiter(RateLimit(requests: 100, per: .seconds(1)), store: RedisRateLimitStore(fleet))
/// ```
public final class FleetState: Sendable {
    /// Where the shared state lives, and how the fleet degrades without it.
    public struct Configuration: Sendable {
        /// The Redis server.
        public var endpoint: RedisEndpoint
        /// `AUTH` after connecting, if the server asks for it.
        public var credentials: RedisCredentials?
        /// The fleet's name in the keys (`courier:{<namespace>}:…`): fleets
        /// with different names share nothing. `{` and `}` become `_`.
        public var namespace: String
        /// How many instances the fleet runs: while Redis is away each
        /// takes this share of every limit. At least 1.
        public var expectedInstances: Int
        /// How long one command may take: 50 ms. A slow Redis costs a call
        /// this much at most, then the instance decides alone.
        public var commandTimeout: Duration
        /// How long connecting may take: 250 ms.
        public var connectTimeout: Duration
        /// After a failure, how long the instance decides alone before it
        /// tries Redis again: 1 s.
        public var reconnectDelay: Duration
        /// The most commands waiting for the thread; beyond, a decision is
        /// made alone at once: 1,024.
        public var maxPendingOperations: Int
        /// Where losing and regaining the server is said.
        public var logger: Logger
        /// Where `courier_fleet_local_decisions_total`,
        /// `courier_fleet_fallbacks_total` and `courier_fleet_shared_up` go.
        public var metricsFactory: any MetricsFactory
        /// Told each time the instance falls back to deciding alone and
        /// each time it returns to the fleet.
        public var monitors: [any FleetMonitor]

        /// A configuration with the defaults above.
        public init(
            endpoint: RedisEndpoint, credentials: RedisCredentials? = nil, namespace: String,
            expectedInstances: Int, commandTimeout: Duration = .milliseconds(50),
            connectTimeout: Duration = .milliseconds(250), reconnectDelay: Duration = .seconds(1),
            maxPendingOperations: Int = 1024, logger: Logger = Logger(label: "courier.fleet"),
            metricsFactory: any MetricsFactory = MetricsSystem.factory, monitors: [any FleetMonitor] = []
        ) {
            self.endpoint = endpoint
            self.credentials = credentials
            self.namespace = namespace
            self.expectedInstances = max(1, expectedInstances)
            self.commandTimeout = commandTimeout
            self.connectTimeout = connectTimeout
            self.reconnectDelay = reconnectDelay
            self.maxPendingOperations = maxPendingOperations
            self.logger = logger
            self.metricsFactory = metricsFactory
            self.monitors = monitors
        }
    }

    /// Where the shared state lives.
    public let configuration: Configuration
    let worker: RedisWorker
    let health: FleetHealth
    private let prefix: String
    private let keys = Locked<[String: String]>([:])

    /// Creates the fleet's link; it connects on first use, so an instance
    /// starts (deciding alone) while Redis is down.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        let namespace = configuration.namespace.map { $0 == "{" || $0 == "}" ? "_" : $0 }
        prefix = "courier:{\(String(namespace))}:"
        health = FleetHealth(configuration)
        worker = RedisWorker(
            RedisLinkSettings(
                endpoint: configuration.endpoint, credentials: configuration.credentials,
                connectTimeout: configuration.connectTimeout, commandTimeout: configuration.commandTimeout,
                reconnectDelay: configuration.reconnectDelay,
                maxPendingOperations: configuration.maxPendingOperations, threadName: "courier-fleet"),
            health: health)
    }

    deinit { worker.stop() }

    /// Whether the last command reached Redis: `false` while the instance
    /// decides alone.
    public var isShared: Bool { health.isUp }

    /// The Redis key of `name` in the family `kind`: digested, so that no
    /// host name or principal is written out, and fixed in length.
    /// Made once per name (kept until ``keysKept`` pile up: principals come
    /// and go), not on every decision.
    func key(_ kind: String, _ name: String) -> String {
        let full = kind + ":" + name
        if let known = keys.withLock({ $0[full] }) { return known }
        let made = prefix + kind + ":" + SHA256.hex(Array(name.utf8))
        keys.withLock { keys in
            if keys.count >= Self.keysKept { keys.removeAll(keepingCapacity: true) }
            keys[full] = made
        }
        return made
    }

    /// The most Redis key names ``key(_:_:)`` keeps.
    static let keysKept = 4_096

    /// Sends `script` without waiting for its reply (it goes out with the
    /// next batch): for counting no caller waits on.
    func post(_ script: String, keys: [String], arguments: [Int64]) {
        worker.post(Self.script(script, keys, arguments))
    }

    /// Runs a plain command on Redis; `nil` when the instance must decide
    /// alone (counted, as for a script).
    func perform(_ command: [[UInt8]]) async -> RedisReply? {
        await ask(.command(command))
    }

    /// Runs `script` on Redis; `nil` when the instance must decide alone
    /// (counted, and said once when Redis goes away).
    func run(_ script: String, keys: [String], arguments: [Int64]) async -> RedisReply? {
        await ask(Self.script(script, keys, arguments))
    }

    /// Runs `script` with byte arguments (a sealed credential); `nil` when
    /// the instance must decide alone.
    func run(_ script: String, keys: [String], byteArguments: [[UInt8]]) async -> RedisReply? {
        await ask(.script(source: script, keys: keys, arguments: byteArguments))
    }

    private func ask(_ request: RedisWorker.Request) async -> RedisReply? {
        do {
            return try await worker.perform(request)
        } catch {
            health.decidedAlone()
            return nil
        }
    }

    private static func script(_ source: String, _ keys: [String], _ arguments: [Int64])
        -> RedisWorker.Request
    {
        .script(source: source, keys: keys, arguments: arguments.map { Array(String($0).utf8) })
    }
}

/// What the fleet tells people about its Redis.
final class FleetHealth: RedisHealthObserver {
    private let configuration: FleetState.Configuration
    private let local: Counter
    private let fallbacks: Counter
    private let up: Gauge
    private let state = Atomic(true)

    init(_ configuration: FleetState.Configuration) {
        self.configuration = configuration
        let dimensions = [("namespace", configuration.namespace)]
        local = Counter(
            label: "courier_fleet_local_decisions_total", dimensions: dimensions,
            factory: configuration.metricsFactory)
        fallbacks = Counter(
            label: "courier_fleet_fallbacks_total", dimensions: dimensions,
            factory: configuration.metricsFactory)
        up = Gauge(
            label: "courier_fleet_shared_up", dimensions: dimensions, factory: configuration.metricsFactory)
    }

    var isUp: Bool { state.load(ordering: .relaxed) }

    /// A decision made without Redis (down, slow, or too busy).
    func decidedAlone() { local.increment() }

    func connected() { up.record(1) }
    func failed() {}

    func wentDown(reason: String) {
        state.store(false, ordering: .relaxed)
        up.record(0)
        fallbacks.increment()
        for monitor in configuration.monitors { monitor.fleetEvent(.fellBack(reason: reason)) }
        configuration.logger.warning(
            "the fleet's shared state is unavailable; this instance keeps 1/\(configuration.expectedInstances) of every limit until it is back",
            metadata: ["endpoint": "\(configuration.endpoint)", "reason": "\(reason)"])
    }

    func recovered() {
        state.store(true, ordering: .relaxed)
        for monitor in configuration.monitors { monitor.fleetEvent(.returned) }
        configuration.logger.notice(
            "the fleet's shared state is back", metadata: ["endpoint": "\(configuration.endpoint)"])
    }
}
