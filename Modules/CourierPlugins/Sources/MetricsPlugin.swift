public import CoreMetrics
@_spi(Locking) public import CourierCore
public import HTTPTypes

/// Counts and times every attempt and every call through swift-metrics.
///
/// | metric | type | dimensions |
/// |---|---|---|
/// | `<prefix>_requests_total` | counter | `endpoint`, `status_class`, `status`, `error` |
/// | `<prefix>_request_duration_seconds` | timer | `endpoint`, `status_class`, `status`, `error` |
/// | `<prefix>_request_phase_seconds` | timer | `endpoint`, `phase`: `dns`, `connect`, `tls`, `first_byte`, `total` — each from the start of the exchange, where the transport measures it |
/// | `<prefix>_retries_total` | counter | `endpoint`, `reason` (the failure's code) |
/// | `<prefix>_redirects_total` | counter | `endpoint`, `status` |
/// | `<prefix>_cache_lookups_total` | counter | `endpoint`, `outcome`: `answered`, `delivered_first`, `revalidating`, `miss`, `generated` |
/// | `<prefix>_request_body_bytes_total` | counter | `endpoint` |
/// | `<prefix>_response_body_bytes_total` | counter | `endpoint` |
/// | `<prefix>_calls_total` | counter | `endpoint`, `outcome` (`success`, or the error code) |
/// | `<prefix>_background_refreshes_total` | counter | `endpoint`, `outcome`: the refreshes a response cache ran in the background, which nobody else sees fail |
/// | `<prefix>_stream_body_bytes_total` | counter | `endpoint` |
/// | `<prefix>_stream_events_total` | counter | `endpoint` |
/// | `<prefix>_websocket_*` | | a WebSocket connection's messages, bytes, pongs and reconnects, as they happen (`MetricsPlugin+WebSocket`) |
///
/// A streamed call (`APIClient.stream`, `APIClient.events`) is one call:
/// each connection is counted and timed up to its head, and when the
/// stream ends its body bytes and server-sent events are counted once,
/// beside its outcome.
///
/// Dimensions are bounded: `endpoint` is the route template
/// (`GET users/{id}`, never `/users/7`), `status_class` is `2xx` … `5xx` or
/// `none`, `status` the exact code (at most 500 values) or `none`, `error` and `outcome` are ``/CourierCore/CourierError/Code`` values
/// or `none`. A request is timed from `willSend` to `didReceive` on the
/// plugin's clock, failures included.
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory(…))
/// let client = APIClient(transport: CurlTransport.shared, plugins: [MetricsPlugin()])
/// ```
public final class MetricsPlugin: Plugin {
    /// The first part of every metric's label: `courier` by default.
    public let prefix: String
    let factory: any MetricsFactory
    private let clock = ContinuousClock()
    /// When each attempt in flight was sent, by call and attempt.
    private let started = Locked<[Attempt: ContinuousClock.Instant]>([:])

    private struct Attempt: Hashable {
        let call: UInt64
        let number: Int
    }

    /// Creates the plugin.
    /// - Parameters:
    ///   - prefix: The first part of every metric's label.
    ///   - factory: Where metrics go: the bootstrapped `MetricsSystem.factory`
    ///     by default (a test's `TestMetrics`).
    public init(prefix: String = "courier", factory: any MetricsFactory = MetricsSystem.factory) {
        self.prefix = prefix
        self.factory = factory
    }

    /// It only observes: ``/CourierCore/CredentialIdentity/none``, so the calls it counts can still be cached and coalesced.
    public func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }

    /// Notes when the attempt was sent.
    public func willSend(_ request: HTTPRequest, context: CallContext) async {
        let now = clock.now
        started.withLock { $0[Attempt(call: context.callID, number: context.attempt)] = now }
    }

    /// Counts and times the attempt.
    public func didReceive(
        _ result: Result<RawResponse, CourierError>, request: HTTPRequest, context: CallContext
    ) async {
        let start = started.withLock {
            $0.removeValue(forKey: Attempt(call: context.callID, number: context.attempt))
        }
        let endpoint = ("endpoint", context.name)
        let status: String
        var code = "none"
        let error: String
        var sent: Int64 = context.requestBody?.length ?? 0
        var received: Int64 = 0
        switch result {
        case .success(let response):
            status = Self.statusClass(response.statusCode)
            code = Self.statusCode(response.statusCode)
            error = "none"
            sent = max(sent, response.metrics.bytesSent)
            received = response.metrics.bytesReceived
        case .failure(let failure):
            status = failure.response.map { Self.statusClass($0.statusCode) } ?? "none"
            code = failure.response.map { Self.statusCode($0.statusCode) } ?? "none"
            error = failure.code.rawValue
        }
        let dimensions = [endpoint, ("status_class", status), ("status", code), ("error", error)]
        Counter(label: "\(prefix)_requests_total", dimensions: dimensions, factory: factory).increment()
        if let start {
            Timer(label: "\(prefix)_request_duration_seconds", dimensions: dimensions, factory: factory)
                .recordNanoseconds((clock.now - start).nanoseconds)
        }
        if sent > 0 {
            Counter(label: "\(prefix)_request_body_bytes_total", dimensions: [endpoint], factory: factory)
                .increment(by: sent)
        }
        Counter(label: "\(prefix)_response_body_bytes_total", dimensions: [endpoint], factory: factory)
            .increment(by: received)
    }

    /// Counts the call's pass by its outcome.
    public func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
        -> Result<RawResponse, CourierError>
    {
        let outcome: String
        switch result {
        case .success: outcome = "success"
        case .failure(let error): outcome = error.code.rawValue
        }
        let dimensions = [("endpoint", context.name), ("outcome", outcome)]
        Counter(label: "\(prefix)_calls_total", dimensions: dimensions, factory: factory).increment()
        if context.isBackgroundRefresh {
            Counter(label: "\(prefix)_background_refreshes_total", dimensions: dimensions, factory: factory)
                .increment()
        }
        let response = try? result.get()
        if let stream = response?.stream ?? result.failureResponse?.stream {
            let endpoint = [("endpoint", context.name)]
            Counter(label: "\(prefix)_stream_body_bytes_total", dimensions: endpoint, factory: factory)
                .increment(by: stream.bytes)
            if let events = stream.events {
                Counter(label: "\(prefix)_stream_events_total", dimensions: endpoint, factory: factory)
                    .increment(by: events)
            }
        }
        return result
    }

    static func statusClass(_ status: Int) -> String {
        (100...599).contains(status) ? "\(status / 100)xx" : "other"
    }

    /// The code itself, kept bounded: `other` outside 100–599.
    static func statusCode(_ status: Int) -> String {
        (100...599).contains(status) ? String(status) : "other"
    }

    /// Times the transport's phases of each attempt and counts retries,
    /// redirects and cache lookups, from the call's events.
    public func callEvent(_ event: CallEvent) {
        let endpoint = ("endpoint", event.context.name)
        switch event.kind {
        case .attemptFinished(_, let result):
            guard let metrics = (try? result.get())?.metrics ?? result.failureResponse?.metrics else {
                return
            }
            let phases: [(String, Duration?)] = [
                ("dns", metrics.dnsLookup), ("connect", metrics.connect), ("tls", metrics.tlsHandshake),
                ("first_byte", metrics.timeToFirstByte), ("total", metrics.total),
            ]
            for (phase, duration) in phases {
                guard let duration else { continue }
                Timer(
                    label: "\(prefix)_request_phase_seconds", dimensions: [endpoint, ("phase", phase)],
                    factory: factory
                ).recordNanoseconds(duration.nanoseconds)
            }
        case .retryScheduled(_, let failure):
            Counter(
                label: "\(prefix)_retries_total", dimensions: [endpoint, ("reason", failure.code.rawValue)],
                factory: factory
            ).increment()
        case .redirected(let status, _, _):
            Counter(
                label: "\(prefix)_redirects_total",
                dimensions: [endpoint, ("status", Self.statusCode(status))],
                factory: factory
            ).increment()
        case .failedOver(_, _, let failure):
            Counter(
                label: "\(prefix)_failovers_total",
                dimensions: [endpoint, ("reason", failure.code.rawValue)],
                factory: factory
            ).increment()
        case .cache(let outcome):
            let name =
                switch outcome {
                case .answered: "answered"
                case .deliveredFirst: "delivered_first"
                case .network(let revalidating): revalidating ? "revalidating" : "miss"
                case .generated: "generated"
                }
            Counter(
                label: "\(prefix)_cache_lookups_total", dimensions: [endpoint, ("outcome", name)],
                factory: factory
            ).increment()
        default:
            break
        }
    }
}

extension Result where Failure == CourierError {
    /// The response a failure carries.
    fileprivate var failureResponse: RawResponse? {
        if case .failure(let error) = self { return error.response }
        return nil
    }
}
