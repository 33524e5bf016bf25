public import CourierCore
public import HTTPTypes
public import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Logs every attempt through a swift-log `Logger`, with secrets masked.
///
/// | level | what |
/// |---|---|
/// | `info` | one line per request and one per response or failure: method and URL, status, duration, bytes; one per retry (its delay and reason) and per credential refresh; one for a call that failed (after validation and retries, or decoding); a cancelled call or a stream its reader stopped as cancelled, not failed |
/// | `debug` | the request's and the response's header fields; each redirect hop; what the response cache did |
/// | `trace` | the request as a `curl` command (body included) and the response body, each at most ``bodyLimit`` bytes |
///
/// The logger's own level decides what is written, and nothing is
/// formatted for a level that is off. Everything ``/CourierCore/Redaction`` hides is
/// masked in every line — header values, query parameters, user info,
/// JSON and form fields — and errors are logged by their `description`,
/// which carries no query, header or body.
///
/// ```swift
/// var logger = Logger(label: "shop.api")
/// logger.logLevel = .debug
/// let client = APIClient(transport: CurlTransport.shared, plugins: [LoggingPlugin(logger: logger)])
/// ```
///
/// ```
/// info  → GET https://api.example.com/v1/orders?page=1&token=***
/// debug → headers: Accept: application/json; Authorization: ***
/// info  ← 200 GET orders in 12.4 ms, 812 B
/// ```
///
/// Which call and attempt a line belongs to is in its metadata, once:
/// `courier.call`, `courier.attempt` (from 1; not on the line for a failed
/// call, which is about every attempt), `courier.endpoint` (the route
/// template), and on a response `courier.status`, `courier.duration_ms`,
/// `courier.bytes`.
public struct LoggingPlugin: Plugin, Redacting {
    /// Where lines go.
    public var logger: Logger
    /// What is masked, beside the credential fields of the client whose
    /// calls it logs (``/CourierCore/CallContext/credentialFields``). The
    /// header fields it hides count as credentials of those calls
    /// (``/CourierCore/Redacting``).
    public var redaction: Redaction
    /// The most body bytes a trace line shows: 4 KiB by default.
    public var bodyLimit: Int

    /// Creates the plugin.
    public init(logger: Logger, redaction: Redaction = .standard, bodyLimit: Int = 4 << 10) {
        self.logger = logger
        self.redaction = redaction
        self.bodyLimit = bodyLimit
    }

    /// It only observes: ``/CourierCore/CredentialIdentity/none``, so the calls it logs can still be cached and coalesced.
    public func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }

    /// Logs the request: a summary, its fields, its curl command.
    public func willSend(_ request: HTTPRequest, context: CallContext) async {
        let metadata = Self.metadata(context)
        let redaction = redaction.hiding(context.credentialFields)
        let size = context.requestBody?.length.map { ", body \($0) B" } ?? ""
        logger.info(
            "→ \(request.method) \(redaction.url(request))\(size)", metadata: metadata)
        logger.debug(
            "→ headers: \(redaction.lines(request.headerFields).joined(separator: "; "))", metadata: metadata)
        logger.trace(
            "→ \(CurlCommand(request, body: context.requestBody, redaction: redaction, bodyLimit: bodyLimit))",
            metadata: metadata)
    }

    /// Logs the response or the failure: a summary, its fields, its body.
    public func didReceive(
        _ result: Result<RawResponse, CourierError>, request: HTTPRequest, context: CallContext
    ) async {
        let redaction = redaction.hiding(context.credentialFields)
        var metadata = Self.metadata(context)
        switch result {
        case .success(let response):
            let duration = response.metrics.total.map { " in \(Self.milliseconds($0)) ms" } ?? ""
            metadata["courier.status"] = "\(response.statusCode)"
            metadata["courier.bytes"] = "\(response.metrics.bytesReceived)"
            if let total = response.metrics.total {
                metadata["courier.duration_ms"] = "\(Self.milliseconds(total))"
            }
            let bytes = response.metrics.bytesReceived
            logger.info(
                "← \(response.statusCode) \(context.name)\(duration), \(bytes) B",
                metadata: metadata)
            logger.debug(
                "← headers: \(redaction.lines(response.headerFields).joined(separator: "; "))",
                metadata: metadata)
            logger.trace("← body: \(body(of: response))", metadata: metadata)
        case .failure(let error) where error.code == .cancelled:
            metadata["courier.error"] = "\(error.code)"
            logger.info("← cancelled \(context.name)", metadata: metadata)
        case .failure(let error):
            metadata["courier.error"] = "\(error.code)"
            logger.info(
                "← failed \(context.name): \(error.description)", metadata: metadata)
            if let response = error.response {
                logger.debug(
                    "← headers: \(redaction.lines(response.headerFields).joined(separator: "; "))",
                    metadata: metadata)
                logger.trace("← body: \(body(of: response))", metadata: metadata)
            }
        }
    }

    /// Logs a call that failed — after validation, the envelope check and
    /// retries — by the error's description; a cancelled one (a stream its
    /// reader stopped, a task cancelled) as cancelled, not failed.
    public func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
        -> Result<RawResponse, CourierError>
    {
        if case .failure(let error) = result {
            var metadata = Self.metadata(context)
            metadata["courier.error"] = "\(error.code)"
            if error.code == .cancelled {
                logger.info("■ \(context.name) cancelled", metadata: metadata)
            } else {
                logger.info("✗ \(context.name) failed: \(error.description)", metadata: metadata)
            }
        }
        return result
    }

    private func body(of response: RawResponse) -> String {
        switch response.body {
        case .bytes(let bytes):
            redaction.body(bytes, contentType: response.headerFields[.contentType], limit: bodyLimit)
        case .file(let url):
            "<written to \(url.lastPathComponent)>"
        }
    }

    /// Logs retries, refreshes and a body that did not decode (`info`),
    /// redirect hops and cache lookups (`debug`), from the call's events.
    public func callEvent(_ event: CallEvent) {
        let context = event.context
        switch event.kind {
        case .retryScheduled(let delay, let failure):
            logger.info(
                "↻ \(context.name): retry in \(Self.milliseconds(delay)) ms after \(failure.code)",
                metadata: Self.metadata(context))
        case .credentialRefreshStarted:
            logger.info("⟳ \(context.name): refreshing the credential", metadata: Self.metadata(context))
        case .credentialRefreshFinished(let succeeded):
            logger.info(
                "⟳ \(context.name): credential refresh \(succeeded ? "succeeded" : "failed")",
                metadata: Self.metadata(context))
        case .redirected(let status, _, let next):
            logger.debug(
                "↪ \(status) → \(next.method) \(redaction.url(next))", metadata: Self.metadata(context))
        case .failedOver(let from, let to, let failure):
            logger.notice(
                "⇢ \(context.name): \(redaction.url(from)) unreachable (\(failure.code)), trying \(redaction.url(to))",
                metadata: Self.metadata(context))
        case .cache(let outcome):
            logger.debug("◇ \(context.name): cache \(outcome)", metadata: Self.metadata(context))
        case .decodingFailed(let error):
            var metadata = Self.metadata(context)
            metadata["courier.error"] = "\(error.code)"
            logger.info("✗ \(context.name) failed: \(error.description)", metadata: metadata)
        default:
            break
        }
    }

    /// The call, the attempt (0 is outside any attempt: left out) and the endpoint.
    private static func metadata(_ context: CallContext) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "courier.call": "\(context.callID)", "courier.endpoint": "\(context.name)",
        ]
        if context.attempt > 0 { metadata["courier.attempt"] = "\(context.attempt)" }
        return metadata
    }

    static func milliseconds(_ duration: Duration) -> String {
        String((duration.seconds * 10_000).rounded() / 10)
    }
}
