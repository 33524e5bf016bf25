import Courier
import Foundation
import Synchronization

/// Prints every attempt as it comes back: status or error, envelope code and
/// message, and the transport's own timing.
struct ConsoleLog: Plugin {
    /// Whether each line names its call (when calls of several endpoints interleave).
    var namesCalls = false

    func didReceive(_ result: Result<RawResponse, CourierError>, request: HTTPRequest, context: CallContext)
        async
    {
        let line: String
        switch result {
        case .success(let response):
            let timing = response.metrics.total.map { " in \(Format.duration($0))" } ?? ""
            line = "HTTP \(response.statusCode)\(timing)\(Format.envelopeNote(response))"
        case .failure(let error):
            line = "\(error.code): \(error.message)"
        }
        let call = namesCalls ? "\(context.name) #\(context.callID), " : ""
        print("     \(call)attempt \(context.attempt): \(line)")
    }
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

    /// ` — envelope 4003 "…"` when the body is an envelope with a non-zero code.
    static func envelopeNote(_ response: RawResponse) -> String {
        guard let bytes = response.body.bytes,
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let code = object["code"] as? Int, code != 0
        else {
            let type = response.headers[.contentType] ?? ""
            return type.hasPrefix("text/html") ? " — an HTML page, not an envelope" : ""
        }
        return " — envelope code \(code) \"\(object["msg"] as? String ?? "")\""
    }

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
    private let state = Mutex<(client: APIClient?, refreshes: Int)>((nil, 0))

    init(api: ShopAPI) { self.api = api }

    /// The client the refresh call goes through (the authenticated one: the
    /// refresh endpoint opts out of authentication).
    func use(_ client: APIClient) { state.withLock { $0.client = client } }

    var refreshes: Int { state.withLock { $0.refreshes } }

    func apply(_ token: String, to request: inout HTTPRequest) throws {
        request.headerFields[.authorization] = "Bearer \(token)"
    }

    func refresh(_ token: String) async throws -> String {
        guard
            let client = state.withLock({ state in
                state.refreshes += 1
                return state.client
            })
        else { throw CourierError.vetoed("no client to refresh through") }
        return try await client.send(api.refresh(token: token)).token
    }
}
