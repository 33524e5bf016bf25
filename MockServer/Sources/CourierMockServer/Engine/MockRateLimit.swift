import Foundation
import NIOConcurrencyHelpers

/// A rate limit the mock announces and enforces, as an API gateway does:
/// at most ``requests`` per ``window`` for each client key, counted in
/// fixed windows from the server's start; a request over it is answered `429 Too Many Requests`
/// with `Retry-After` and the IETF fields (draft-ietf-httpapi-ratelimit-headers):
/// `RateLimit-Policy: "default";q=<requests>;w=<window>` and
/// `RateLimit: "default";r=<remaining>;t=<seconds to the reset>`. Answers
/// within the limit carry the two fields too, so a client can slow down
/// before it is refused. The admin API is never limited.
public struct MockRateLimit: Sendable, Equatable {
    /// Who a request counts for.
    public enum ClientKey: Sendable, Equatable {
        /// The value of this request header (a key, a tenant); requests
        /// without it count together.
        case header(String)
        /// The client's IP address.
        case remoteAddress
    }

    /// Requests allowed per window, for each key.
    public var requests: Int
    /// The window, in whole seconds.
    public var window: Int
    /// Who a request counts for.
    public var key: ClientKey
    /// Only paths that begin with this are limited (`nil`: every path).
    public var pathPrefix: String?

    /// A limit of `requests` per `window` seconds per `key`.
    public init(requests: Int, window: Int, key: ClientKey = .remoteAddress, pathPrefix: String? = nil) {
        self.requests = max(0, requests)
        self.window = max(1, window)
        self.key = key
        self.pathPrefix = pathPrefix
    }

    /// Reads `100/60` (requests per seconds) and a key, `remote` or
    /// `header:NAME`, as the command line gives them; `nil` when either is malformed.
    public init?(spec: String, key: String) {
        let parts = spec.split(separator: "/")
        guard parts.count == 2, let requests = Int(parts[0]), let window = Int(parts[1]), requests >= 0,
            window >= 1
        else { return nil }
        let clientKey: ClientKey
        if key == "remote" {
            clientKey = .remoteAddress
        } else if key.hasPrefix("header:"), key.count > "header:".count {
            clientKey = .header(String(key.dropFirst("header:".count)))
        } else {
            return nil
        }
        self.init(requests: requests, window: window, key: clientKey)
    }
}

/// The counts of ``MockRateLimit``'s current window, per key.
final class RateLimitWindows: Sendable {
    /// What the limit said about one request.
    struct Verdict: Equatable {
        var allowed: Bool
        var remaining: Int
        /// Whole seconds until the window ends (at least 1).
        var reset: Int
    }

    let limit: MockRateLimit
    /// Seconds since the server started: windows begin at the start, so a
    /// test well within one window never sees it roll over.
    private let clock: @Sendable () -> Double
    private let state = NIOLockedValueBox((window: Int64.min, counts: [String: Int]()))

    init(_ limit: MockRateLimit, clock: @escaping @Sendable () -> Double) {
        self.limit = limit
        self.clock = clock
    }

    /// Whether `request` from `remoteAddress` (`ip:port`) is limited, and
    /// `nil` when the limit does not cover it.
    func count(_ request: RecordedRequest, remoteAddress: String) -> Verdict? {
        if let prefix = limit.pathPrefix, !request.path.hasPrefix(prefix) { return nil }
        let key: String
        switch limit.key {
        case .header(let name): key = "h:" + (request.header(name) ?? "")
        case .remoteAddress:
            let host = remoteAddress.lastIndex(of: ":").map { String(remoteAddress[..<$0]) } ?? remoteAddress
            key = "a:" + host
        }
        let now = clock()
        let window = Int64((now / Double(limit.window)).rounded(.down))
        let reset = max(1, Int((Double(window + 1) * Double(limit.window) - now).rounded(.up)))
        return state.withLockedValue { state in
            if state.window != window { state = (window, [:]) }
            let used = state.counts[key, default: 0]
            guard used < limit.requests else { return Verdict(allowed: false, remaining: 0, reset: reset) }
            state.counts[key] = used + 1
            return Verdict(allowed: true, remaining: limit.requests - used - 1, reset: reset)
        }
    }

    /// The announcing fields of `verdict`.
    func fields(_ verdict: Verdict) -> [(name: String, value: String)] {
        var fields = [
            (name: "RateLimit-Policy", value: "\"default\";q=\(limit.requests);w=\(limit.window)"),
            (name: "RateLimit", value: "\"default\";r=\(verdict.remaining);t=\(verdict.reset)"),
        ]
        if !verdict.allowed { fields.append((name: "Retry-After", value: "\(verdict.reset)")) }
        return fields
    }
}
