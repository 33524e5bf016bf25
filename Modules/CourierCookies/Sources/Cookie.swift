public import Foundation

/// One stored cookie, as RFC 6265 §5.3 keeps it.
///
/// ```swift
/// for cookie in jar.cookies where cookie.domain == "shop.example" {
///     print(cookie.name, cookie.expires ?? "session")
/// }
/// ```
public struct Cookie: Sendable, Hashable, Codable {
    /// The cookie's name (never empty).
    public var name: String
    /// The cookie's value, as the server sent it.
    public var value: String
    /// The host it was set by (``hostOnly``), or the domain it was set for,
    /// lowercase, without a leading dot.
    public var domain: String
    /// `true` when the response set no `Domain`: the cookie goes back to
    /// exactly ``domain`` and none of its subdomains.
    public var hostOnly: Bool
    /// The path it applies to and under (`/` for the whole site).
    public var path: String
    /// Sent over `https` only, and only an `https` response may set it.
    public var secure: Bool
    /// Kept as data: a Courier client has no scripts to hide it from.
    public var httpOnly: Bool
    /// Kept as data: a Courier client makes no cross-site requests of its own.
    public var sameSite: SameSite?
    /// When it expires; `nil` for a session cookie, which lives until the
    /// jar does (or ``CookieJar/removeSessionCookies()``) and is not persisted.
    public var expires: Date?
    /// When it was first set (a replacement keeps the first time).
    public var created: Date
    /// When it was last sent or set.
    public var lastAccessed: Date

    /// Creates a cookie; `CookieJar/set(_:)` checks it as if a response had set it.
    public init(
        name: String, value: String, domain: String, hostOnly: Bool = true, path: String = "/",
        secure: Bool = false, httpOnly: Bool = false, sameSite: SameSite? = nil, expires: Date? = nil,
        created: Date = Date(), lastAccessed: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.hostOnly = hostOnly
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
        self.expires = expires
        self.created = created
        self.lastAccessed = lastAccessed ?? created
    }

    /// Whether it outlives the session (it has an expiry).
    public var isPersistent: Bool { expires != nil }

    /// Whether it has expired at `now`.
    public func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    /// What identifies it in a jar: a cookie with the same name, domain and
    /// path replaces it (RFC 6265 §5.3 step 11).
    struct Identity: Hashable {
        var name: String
        var domain: String
        var path: String
    }

    var identity: Identity { Identity(name: name, domain: domain, path: path) }
}

/// The `SameSite` attribute (RFC 6265bis): kept as data.
///
/// An open set, so that a value a later draft adds does not break callers.
public struct SameSite: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    /// The attribute's value as the server sent it, in canonical case.
    public var rawValue: String

    /// Creates a value; case is kept as given.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `Strict`.
    public static let strict = SameSite(rawValue: "Strict")
    /// `Lax`.
    public static let lax = SameSite(rawValue: "Lax")
    /// `None`.
    public static let none = SameSite(rawValue: "None")

    /// The known value named `text` (any case), or `nil`.
    static func parse(_ text: Substring) -> SameSite? {
        [SameSite.strict, .lax, .none].first { $0.rawValue.caseInsensitiveCompare(text) == .orderedSame }
    }

    /// The value, as sent.
    public var description: String { rawValue }
}
