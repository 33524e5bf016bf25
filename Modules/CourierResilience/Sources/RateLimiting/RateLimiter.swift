@_spi(Locking) public import CourierCore
public import HTTPTypes

/// Keeps a client under a rate: the limit you set, and the pauses servers
/// announce (``RateLimitAnnouncement``), per host, endpoint or principal.
///
/// Before each attempt the limiter reserves the attempt's place under its
/// key. A key over its rate makes the attempt wait — within the attempt's
/// deadline, else at once — or fail at once with
/// `CourierError.Code.rateLimited` and a ``RateLimitedError`` saying when to
/// try again, as ``whenLimited`` says. After each attempt it reads the
/// response: a 429 or 503 with `Retry-After`, an exhausted `RateLimit` or
/// `X-RateLimit-*` quota pauses the key until the announced reset, for
/// every caller that shares the limiter — instead of each call finding out
/// alone. Share one limiter between clients to share their rate.
///
/// ```swift
/// var configuration = APIClient.Configuration(transport: CurlTransport.shared)
/// configuration.rateLimiter = RateLimiter(RateLimit(requests: 100, per: .seconds(1)), per: .host)
/// ```
public final class RateLimiter: Sendable {
    /// What counts as one rate.
    public enum Scope: Sendable, Hashable {
        /// Each origin (`scheme://host:port`).
        case host
        /// Each endpoint (its node, method and route template) on each origin.
        case endpoint
        /// Each principal — the credential fields a request carries,
        /// digested, never stored — on each origin; requests without
        /// credentials share one rate.
        case principal
    }

    /// What an attempt over the rate does.
    public enum WhenLimited: Sendable, Hashable {
        /// Waits for its turn, when that comes within the attempt's deadline;
        /// fails at once otherwise.
        case wait
        /// Fails at once.
        case fail
    }

    /// The client's own limit; `nil` to follow only what servers announce.
    public let limit: RateLimit?
    /// What counts as one rate.
    public let scope: Scope
    /// What an attempt over the rate does.
    public let whenLimited: WhenLimited
    /// Where the rates are kept.
    let store: any RateLimitStore
    /// ``store`` when it is this process's memory: decided without an
    /// asynchronous call through the protocol (the common case, per call).
    let local: LocalRateLimitStore?

    /// Creates a limiter.
    /// - Parameters:
    ///   - limit: The client's own limit; `nil` to follow only what servers announce.
    ///   - scope: What counts as one rate: ``Scope/host`` by default.
    ///   - whenLimited: Wait (the default) or fail at once.
    ///   - store: Where the rates are kept: this process's memory by default.
    public init(
        _ limit: RateLimit?, per scope: Scope = .host, whenLimited: WhenLimited = .wait,
        store: any RateLimitStore = LocalRateLimitStore()
    ) {
        self.limit = limit
        self.scope = scope
        self.whenLimited = whenLimited
        self.store = store
        local = store as? LocalRateLimitStore
    }

    /// The key of `request` under ``scope``, in the call `state` describes.
    func key(for request: HTTPRequest, state: CallState) -> String {
        let scheme = request.scheme ?? ""
        let authority = request.authority ?? ""
        // One allocation for the key, not one per growth.
        var origin = String()
        origin.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count)
        origin += scheme
        origin += "://"
        origin += authority
        switch scope {
        case .host:
            return origin
        case .endpoint:
            return
                "\(origin) \(request.method.rawValue) \(state.spec.node.name)/\(state.spec.route.path.template)"
        case .principal:
            let lines = state.credentialFields.lines(request.headerFields)
            return lines.isEmpty
                ? "\(origin) anonymous" : "\(origin) principal \(SHA256.hex(Array(lines.utf8)))"
        }
    }
}

extension CourierError.Code {
    /// The client's ``RateLimiter`` kept the attempt back: its key is over
    /// its rate (or paused by the server) for longer than the attempt may
    /// wait. Nothing was sent; ``/CourierCore/CourierError/underlying`` is a
    /// ``RateLimitedError`` saying when to try again. Not retried.
    public static let rateLimited = Self("rateLimited")
}

/// Why an attempt failed with `CourierError.Code.rateLimited`.
public struct RateLimitedError: Error, Sendable, Hashable {
    /// The limiter's key (an origin, an endpoint, or an origin and a
    /// principal's digest).
    public let key: String
    /// How long until the key may send again.
    public let retryAfter: Duration
}
