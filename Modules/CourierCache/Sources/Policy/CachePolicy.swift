#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// How an endpoint's calls use the cache: what to read, what to write, for
/// how long, under which key. A ``ResponseCache`` holds the defaults every
/// endpoint starts from; ``CourierCore/Endpoint/cache(_:_:)``
/// changes them per endpoint.
public struct CachePolicy: Sendable {
    /// When a stored response is delivered, and whether the network is asked
    /// as well: ``CacheReadMode/none`` (the default) reads nothing.
    public var read: CacheReadMode
    /// Which tiers a response from the network is written to:
    /// ``CacheWriteTier/memoryAndDisk`` by default (memory alone when the
    /// cache has no disk store).
    public var write: CacheWriteTier
    /// How long a written response may be served: five minutes by default.
    /// Under HTTP's rules (``followsHTTPHeaders``) it is how long an entry is
    /// kept for revalidation, and never less than the response's own
    /// freshness: `max-age` decides when it is fresh.
    public var expiry: CacheExpiry
    /// Whether the response's own caching headers count (RFC 9111):
    /// `Cache-Control` freshness, `no-cache`, `must-revalidate`,
    /// `stale-while-revalidate`, `Expires`, `Vary`, and revalidation with
    /// `If-None-Match` / `If-Modified-Since`. Implied by
    /// ``CacheReadMode/http``. `no-store` is always respected.
    public var followsHTTPHeaders: Bool
    /// What makes two requests the same entry.
    public var key: CacheKeyRule
    /// Whether responses to requests that carried a credential — an
    /// field of the client's ``/CourierCore/CredentialFields``, or an
    /// authenticating interceptor —
    /// are stored: `false` by default. When `true`, the key includes a digest
    /// of the credential, so one user's response is never served to another.
    public var storesCredentialedResponses: Bool
    /// Names to remove this endpoint's stored responses by, with others'
    /// (``ResponseCache/removeAll(tagged:)``): `["catalog"]` on every
    /// endpoint a catalogue update makes out of date.
    public var tags: Set<String>
    /// How many variants of one URL (responses with `Vary`: one per
    /// `Accept-Language`, say) are kept besides the most recent: 8 by
    /// default; 0 keeps only the most recent. Variants that fall into the
    /// same one of these places replace each other.
    public var variants: Int

    /// The default expiry: five minutes. Long enough that a screen opened
    /// twice in a row reads from the cache, short enough that
    /// ``CacheReadMode/cancelNetwork`` never shows a day-old answer by
    /// surprise. (A default of 0 s would expire every entry at once.)
    public static let defaultExpiry = CacheExpiry.seconds(300)

    /// Creates a policy.
    public init(
        read: CacheReadMode = .none, write: CacheWriteTier = .memoryAndDisk,
        expiry: CacheExpiry = CachePolicy.defaultExpiry, followsHTTPHeaders: Bool = false,
        key: CacheKeyRule = .standard, storesCredentialedResponses: Bool = false, tags: Set<String> = [],
        variants: Int = 8
    ) {
        self.tags = tags
        self.variants = max(0, variants)
        self.read = read
        self.write = write
        self.expiry = expiry
        self.followsHTTPHeaders = followsHTTPHeaders
        self.key = key
        self.storesCredentialedResponses = storesCredentialedResponses
    }
}

/// When a stored response is delivered, and whether the network is asked as
/// well: read modes an app chooses per call, beside RFC 9111's rules.
///
/// | mode | stored and fresh | not stored, or expired |
/// |---|---|---|
/// | ``none`` | not read; the network answers (and may write) | the network |
/// | ``alsoNetwork`` | delivered; the network refreshes the entry silently, in the background | the network |
/// | ``alsoNetworkWithCallback`` | delivered, then the network's answer is delivered too | the network |
/// | ``cancelNetwork`` | delivered; nothing is sent | the network — not an error |
/// | ``http`` | delivered; nothing is sent | revalidated with its validators (a 304 refreshes it), or the network |
///
/// A stored response that no longer passes validation or decoding is
/// reported as a ``/CourierCore/CourierError/Code/cache`` error, removed, and the
/// network answers instead. An open set: switch with a `default`.
public struct CacheReadMode: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case none, alsoNetwork, alsoNetworkWithCallback, cancelNetwork, http
    }

    let kind: Kind

    /// Nothing is read (responses may still be written).
    public static let none = CacheReadMode(kind: .none)
    /// A stored response is delivered; the network still runs and refreshes
    /// the entry without delivering its answer.
    public static let alsoNetwork = CacheReadMode(kind: .alsoNetwork)
    /// A stored response is delivered, then the network's answer too.
    public static let alsoNetworkWithCallback = CacheReadMode(kind: .alsoNetworkWithCallback)
    /// A stored response is delivered and nothing is sent; without one the
    /// network answers.
    public static let cancelNetwork = CacheReadMode(kind: .cancelNetwork)
    /// ``cancelNetwork`` with HTTP's rules: freshness from `Cache-Control`
    /// and `Expires`, revalidation of stale entries, `stale-while-revalidate`.
    public static let http = CacheReadMode(kind: .http)

    /// The mode's name.
    public var description: String {
        switch kind {
        case .none: "none"
        case .alsoNetwork: "alsoNetwork"
        case .alsoNetworkWithCallback: "alsoNetworkWithCallback"
        case .cancelNetwork: "cancelNetwork"
        case .http: "http"
        }
    }
}

/// The tiers a response is written to.
public struct CacheWriteTier: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The tiers, as bits.
    public let rawValue: Int

    /// Creates tiers from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Nothing is written.
    public static let none: CacheWriteTier = []
    /// The ``MemoryStore``.
    public static let memory = CacheWriteTier(rawValue: 1)
    /// The second tier (a ``DiskStore``, or any ``CacheStore``).
    public static let disk = CacheWriteTier(rawValue: 2)
    /// Both.
    public static let memoryAndDisk: CacheWriteTier = [.memory, .disk]

    /// `none`, `memory`, `disk` or `memoryAndDisk`.
    public var description: String {
        switch self {
        case .memory: "memory"
        case .disk: "disk"
        case .memoryAndDisk: "memoryAndDisk"
        default: "none"
        }
    }
}

/// How long a written response may be served.
public enum CacheExpiry: Sendable, Hashable {
    /// Until it is evicted or removed.
    case never
    /// For this many seconds after it was written.
    case seconds(TimeInterval)
    /// Until this date.
    case date(Date)

    /// When an entry written at `now` expires; `nil` for never.
    func expiration(from now: Date) -> Date? {
        switch self {
        case .never: nil
        case .seconds(let seconds): now.addingTimeInterval(seconds)
        case .date(let date): date
        }
    }
}

/// Whether the cache serves one user (an app, a CLI) or many (a server in
/// front of a fleet): RFC 9111's private and shared caches.
public struct CacheSharing: Hashable, Sendable, CustomStringConvertible {
    let isShared: Bool

    /// One user's cache (the default): `Cache-Control: private` responses
    /// are stored.
    public static let `private` = CacheSharing(isShared: false)
    /// A cache many users' calls go through: `private` responses are never
    /// stored, `s-maxage` wins over `max-age`, and a response to a
    /// credentialed request is stored only when it says `public`,
    /// `s-maxage` or `must-revalidate` (RFC 9111 §3.5) — on top of
    /// ``CachePolicy/storesCredentialedResponses``.
    public static let shared = CacheSharing(isShared: true)

    /// `private` or `shared`.
    public var description: String { isShared ? "shared" : "private" }
}
