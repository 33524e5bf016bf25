@_spi(Locking) public import CourierCore

/// What CourierResilience keeps on a client's configuration: its circuit
/// breaker, its network monitor and whether an attempt waits for the
/// network. Each adds its step to the client's attempts only when set.
struct ResilienceSettings: ClientExtension {
    var circuitBreaker: CircuitBreaker?
    var rateLimiter: RateLimiter?
    var networkMonitor: (any NetworkMonitor)?
    var waitsForConnectivity = false

    func attemptSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration)
        -> [(slot: AttemptSlot, step: any AttemptStep)]
    {
        var steps: [(slot: AttemptSlot, step: any AttemptStep)] = []
        if let monitor = networkMonitor {
            if waitsForConnectivity {
                steps.append((.connectivityWait, ConnectivityWaitStep(monitor: monitor)))
            }
            steps.append((.offlineGate, OfflineGateStep(monitor: monitor, waits: waitsForConnectivity)))
        }
        if let rateLimiter { steps.append((.rateLimit, RateLimitStep(limiter: rateLimiter))) }
        if let circuitBreaker { steps.append((.circuitBreaker, CircuitBreakerStep(breaker: circuitBreaker))) }
        return steps
    }
}

extension APIClient.Configuration {
    /// Stops sending to an origin that keeps failing (``CircuitBreaker``);
    /// share one breaker between clients to share what they learn. `nil`
    /// (no breaker) by default.
    public var circuitBreaker: CircuitBreaker? {
        get { self[extension: ResilienceSettings.self]?.circuitBreaker }
        set { resilience { $0.circuitBreaker = newValue } }
    }

    /// Keeps the client's attempts under a rate — its own limit and the
    /// pauses servers announce (``RateLimiter``); share one limiter between
    /// clients to share the rate. `nil` (no limiter) by default.
    public var rateLimiter: RateLimiter? {
        get { self[extension: ResilienceSettings.self]?.rateLimiter }
        set { resilience { $0.rateLimiter = newValue } }
    }

    /// Asked before every attempt; when it says offline, the attempt fails
    /// with ``/CourierCore/CourierError/Code/offline`` and nothing is sent.
    /// `nil` (never asked) by default.
    public var networkMonitor: (any NetworkMonitor)? {
        get { self[extension: ResilienceSettings.self]?.networkMonitor }
        set { resilience { $0.networkMonitor = newValue } }
    }

    /// Whether an attempt that finds the ``networkMonitor`` offline waits for
    /// the network instead of failing at once (Alamofire's offline retrier,
    /// async-http-client's `waitsForConnectivity`): it goes as soon as the
    /// monitor reports online, and fails with
    /// ``/CourierCore/CourierError/Code/offline`` only if the network has
    /// not come back within the retry policy's remaining deadline, or else
    /// the attempt's timeout. `false` by default.
    public var waitsForConnectivity: Bool {
        get { self[extension: ResilienceSettings.self]?.waitsForConnectivity ?? false }
        set { resilience { $0.waitsForConnectivity = newValue } }
    }

    private mutating func resilience(_ change: (inout ResilienceSettings) -> Void) {
        var settings = self[extension: ResilienceSettings.self] ?? ResilienceSettings()
        change(&settings)
        self[extension: ResilienceSettings.self] = settings
    }
}
