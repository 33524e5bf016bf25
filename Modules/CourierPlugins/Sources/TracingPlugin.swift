@_spi(Locking) public import CourierCore
public import HTTPTypes
public import Instrumentation
public import Tracing

/// One span per call and one per attempt through swift-distributed-tracing,
/// named and described as OpenTelemetry's HTTP client conventions say, with
/// the trace context sent along to the server.
///
/// - The **call span** (kind `internal`) starts at the call's first attempt,
///   as a child of the caller's task-local context (`ServiceContext.current`),
///   and ends with the pass; its status is an error when the call failed.
/// - Each **attempt span** (kind `client`) is a child of it, named after the
///   route template (`GET users/{id}`), with `http.request.method`,
///   `url.full` (query tokens and user info masked by ``/CourierCore/Redaction``),
///   `url.template`, `server.address`, `server.port`,
///   `http.request.resend_count` (from the second attempt),
///   `http.response.status_code`, `network.protocol.version` and, on
///   failure, `error.type` (the status code, or the
///   ``/CourierCore/CourierError/Code``) and an error status.
/// - The attempt span's context is injected into the request's header
///   fields through the tracer's own injector (`traceparent` for a W3C
///   tracer such as swift-otel's).
///
/// ```swift
/// InstrumentationSystem.bootstrap(otelTracer)
/// let client = APIClient(transport: CurlTransport.shared, plugins: [TracingPlugin()])
/// ```
public final class TracingPlugin: Plugin, Redacting {
    private let tracer: any Tracer
    /// What `url.full` leaves out; the header fields it hides count as
    /// credentials of the calls it traces (``/CourierCore/Redacting``).
    public let redaction: Redaction
    let spans = Locked<[UInt64: CallSpans]>([:])

    struct CallSpans {
        let call: any Span
        var attempt: (any Span)?
        /// A WebSocket connection's running counts (TracingPlugin+WebSocket).
        var webSocket = WebSocketCounts()
    }

    /// Adds the call's retries, redirects and credential refreshes to its
    /// span as events (`courier.retry` with the reason and delay,
    /// `courier.redirect` with the status, `courier.credential_refresh`):
    /// the span exists from the call's first attempt, so a call answered
    /// from a cache has none.
    public func callEvent(_ event: CallEvent) {
        let spanEvent: SpanEvent
        switch event.kind {
        case .retryScheduled(let delay, let failure):
            spanEvent = SpanEvent(
                name: "courier.retry",
                attributes: [
                    "courier.retry.reason": .string(failure.code.rawValue),
                    "courier.retry.delay_ms": .int64(Int64(delay.nanoseconds / 1_000_000)),
                ])
        case .redirected(let status, _, _):
            spanEvent = SpanEvent(
                name: "courier.redirect", attributes: ["http.response.status_code": .int64(Int64(status))])
        case .failedOver(_, let to, let failure):
            spanEvent = SpanEvent(
                name: "courier.failover",
                attributes: [
                    "courier.failover.reason": .string(failure.code.rawValue),
                    "server.address": .string(to.authority ?? ""),
                ])
        case .credentialRefreshFinished(let succeeded):
            spanEvent = SpanEvent(
                name: "courier.credential_refresh", attributes: ["courier.succeeded": .bool(succeeded)])
        default:
            return
        }
        spans.withLock { $0[event.context.callID]?.call }?.addEvent(spanEvent)
    }

    /// Creates the plugin.
    /// - Parameters:
    ///   - tracer: Where spans go: the bootstrapped `InstrumentationSystem.tracer` by default.
    ///   - redaction: What `url.full` leaves out.
    public init(tracer: any Tracer = InstrumentationSystem.tracer, redaction: Redaction = .standard) {
        self.tracer = tracer
        self.redaction = redaction
    }

    /// It adds trace context, never a credential: ``/CourierCore/CredentialIdentity/none``.
    public func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }

    /// Starts the attempt's span (and the call's, on its first attempt) and
    /// injects its context into the request.
    public func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
        let parent = InstrumentationContext.current ?? .topLevel
        let call =
            spans.withLock { $0[context.callID]?.call }
            ?? tracer.startSpan(context.name, context: parent, ofKind: .internal)
        let attempt = tracer.startSpan(context.name, context: call.context, ofKind: .client)
        attempt.attributes["http.request.method"] = request.method.rawValue
        attempt.attributes["url.full"] = redaction.url(request)
        attempt.attributes["url.template"] = context.route.path.template
        if let authority = request.authority {
            let (host, port) = Self.split(authority, scheme: request.scheme)
            attempt.attributes["server.address"] = host
            attempt.attributes["server.port"] = port
        }
        if context.attempt > 1 { attempt.attributes["http.request.resend_count"] = context.attempt - 1 }
        let replaced = spans.withLock { spans -> (any Span)? in
            let previous = spans[context.callID]?.attempt
            spans[context.callID] = CallSpans(call: call, attempt: attempt)
            return previous
        }
        replaced?.end()  // an attempt a later plugin vetoed before it was sent
        var request = request
        tracer.inject(attempt.context, into: &request.headerFields, using: HTTPFieldsInjector())
        return request
    }

    /// Ends the attempt's span with the status or the failure.
    public func didReceive(
        _ result: Result<RawResponse, CourierError>, request: HTTPRequest, context: CallContext
    ) async {
        let attempt = spans.withLock { spans -> (any Span)? in
            defer { spans[context.callID]?.attempt = nil }
            return spans[context.callID]?.attempt
        }
        guard let attempt else { return }
        switch result {
        case .success(let response):
            attempt.attributes["http.response.status_code"] = response.statusCode
            if let version = response.metrics.httpVersion {
                attempt.attributes["network.protocol.version"] = version
            }
            if response.statusCode >= 400 {
                attempt.attributes["error.type"] = "\(response.statusCode)"
                attempt.setStatus(SpanStatus(code: .error))
            }
        case .failure(let error):
            if let status = error.response?.statusCode {
                attempt.attributes["http.response.status_code"] = status
            }
            attempt.attributes["error.type"] =
                error.response.map { "\($0.statusCode)" } ?? error.code.rawValue
            attempt.setStatus(SpanStatus(code: .error, message: error.shortDescription))
        }
        attempt.end()
    }

    /// Ends the call's span (and an attempt span left open by a veto).
    public func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
        -> Result<RawResponse, CourierError>
    {
        guard let ended = spans.withLock({ $0.removeValue(forKey: context.callID) }) else { return result }
        ended.attempt?.end()
        if case .failure(let error) = result {
            ended.call.attributes["error.type"] = error.code.rawValue
            ended.call.setStatus(SpanStatus(code: .error, message: error.shortDescription))
        }
        ended.call.end()
        return result
    }

    /// `host` and `port` of an authority, the port defaulting by scheme.
    static func split(_ authority: String, scheme: String?) -> (String, Int) {
        var host = Substring(authority)
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        let fallback = scheme == "http" ? 80 : 443
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]"),
            let port = Int(host[host.index(after: colon)...])
        {
            return (String(host[..<colon]), port)
        }
        return (String(host), fallback)
    }
}

/// Writes a tracer's context into request header fields.
struct HTTPFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        carrier[name] = value
    }
}
