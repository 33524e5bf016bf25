import Courier
import Foundation
import Logging
import Synchronization

/// Writes the LoggingPlugin's lines to standard output, indented under
/// the demo's steps: `[info] → GET …`.
struct DemoLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    func log(event: LogEvent) {
        print("     [\(event.level)] \(event.message)")
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

/// A logger for the demo's plugins, at `level`.
func demoLogger(_ level: Logger.Level = .info) -> Logger {
    var logger = Logger(label: "courier.demo") { _ in DemoLogHandler() }
    logger.logLevel = level
    return logger
}

/// The real clock, saying out loud how long it waits before a retry.
struct AnnouncingClock: CourierClock {
    let clock = SystemClock()
    var now: Duration { clock.now }
    var date: Date { clock.date }

    func sleep(for duration: Duration) async throws {
        print("     waiting \(Format.duration(duration)) before the next attempt")
        try await clock.sleep(for: duration)
    }
}

/// Adds the session token to every request once there is one.
final class BearerToken: Interceptor {
    private let token = Mutex<String?>(nil)

    func set(_ value: String) { token.withLock { $0 = value } }

    func intercept(_ request: OutgoingRequest, context: CallContext, next: InterceptorNext) async throws
        -> RawResponse
    {
        var request = request
        if let value = token.withLock({ $0 }) {
            request.head.headerFields[.authorization] = "Bearer \(value)"
        }
        return try await next(request)
    }
}

enum Format {
    static func duration(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value < 1 ? String(format: "%.1f ms", value * 1000) : String(format: "%.2f s", value)
    }

    static func money(_ value: Double) -> String { String(format: "%.2f", value) }

    static func failure(_ error: CourierError) -> String {
        if let business = error.businessFailure {
            let status = error.code == .status ? "HTTP \(error.response?.statusCode ?? 0), " : ""
            return "\(status)business error \(business.code): \(business.message ?? "")"
        }
        return "\(error.code) at \(error.stage): \(error.message)"
    }
}

/// Refreshes the shop's session token through the shop's refresh endpoint,
/// counting the refreshes (the demo shows there is one).
final class SessionRefresher: CredentialProvider {
    private let api: ShopAPI
    private let count = Mutex(0)

    init(api: ShopAPI) { self.api = api }

    var refreshes: Int { count.withLock { $0 } }

    func apply(_ token: String, to request: inout HTTPRequest) throws {
        request.headerFields[.authorization] = "Bearer \(token)"
    }

    /// The refresh is a call of the authenticated client itself (it passes
    /// the authenticator unsigned).
    func refresh(_ token: String, through client: APIClient) async throws -> String {
        count.withLock { $0 += 1 }
        return try await client.send(api.refresh(token: token)).token
    }
}
