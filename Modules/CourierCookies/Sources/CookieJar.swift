@_spi(Locking) public import CourierCore
public import Foundation
public import HTTPTypes

/// A cookie jar for a client: RFC 6265 storage and matching, the public
/// suffix rule through libpsl, applied on every redirect hop.
///
/// Off by default — a server calling APIs for many users must not mix their
/// sessions — and on in ``CourierCore/APIClient/Configuration/browserLike(transport:decoder:cookies:)``:
///
/// ```swift
/// let jar = try CookieJar(persistingTo: supportDirectory.appending(path: "cookies.json"))
/// var configuration = APIClient.Configuration(transport: CurlTransport.shared, decoder: decoder)
/// configuration.cookies = jar
/// let client = APIClient(configuration)
/// // … calls; every Set-Cookie is stored, every request carries what applies …
/// print(jar.cookies.map(\.name))
/// jar.removeAll()  // log out
/// ```
///
/// What it does, per RFC 6265 (and RFC 6265bis where that is stricter):
/// - a `Domain` that is a public suffix (`com`, `co.uk`, `github.io`) is
///   refused, as is one the request's host is not under; without `Domain`
///   the cookie is host-only;
/// - `Path` (or the default path), `Secure` (set and sent over `https`
///   only; plain `http` may not shadow a secure cookie), `__Secure-` and
///   `__Host-` prefixes, `Max-Age` over `Expires`, lifetimes capped
///   (``Limits/maxLifetime``); `HttpOnly` and `SameSite` are kept as data;
/// - names and values with control characters, or over 4 KiB together, are
///   ignored; at most ``Limits/perDomain`` cookies per domain and
///   ``Limits/total`` in all, the least recently used going first.
///
/// Thread-safe; every method is quick and never blocks on I/O: a jar made
/// with ``init(persistingTo:limits:now:)`` writes its file on a queue of its
/// own, after each change to a persistent cookie.
public final class CookieJar: CookieStorage, Sendable {
    /// How many cookies a jar keeps, and for how long at most.
    public struct Limits: Sendable, Hashable {
        /// Cookies per domain: 50 by default (RFC 6265 asks for at least 50).
        public var perDomain: Int
        /// Cookies in all: 3000 by default (RFC 6265 asks for at least 3000).
        public var total: Int
        /// The longest a cookie lives, whatever it asks: 400 days (RFC 6265bis).
        public var maxLifetime: Duration

        /// Creates limits.
        public init(perDomain: Int = 50, total: Int = 3000, maxLifetime: Duration = .seconds(400 * 86_400)) {
            self.perDomain = max(1, perDomain)
            self.total = max(1, total)
            self.maxLifetime = maxLifetime
        }

        /// 50 per domain, 3000 in all, 400 days.
        public static let standard = Limits()
    }

    private let table: Locked<CookieTable>
    private let now: @Sendable () -> Date
    private let file: CookieFileWriter?

    /// Creates an empty jar that lives in memory only.
    ///
    /// - Parameters:
    ///   - limits: How many cookies it keeps.
    ///   - now: The time expiry is judged by (a test passes its own).
    public init(limits: Limits = .standard, now: @escaping @Sendable () -> Date = Date.init) {
        self.table = Locked(CookieTable(limits: limits))
        self.now = now
        self.file = nil
    }

    /// Creates a jar kept in `file` (JSON, mode 0600): the persistent cookies
    /// there are loaded now (a missing file is an empty jar), and the file
    /// is rewritten — atomically, on the jar's own queue — after every
    /// change to a persistent cookie. Session cookies are never written.
    ///
    /// - Throws: ``CookieFileError`` when the file exists but cannot be read
    ///   or is not a cookie file; the file is left as it is.
    public init(
        persistingTo file: URL, limits: Limits = .standard, now: @escaping @Sendable () -> Date = Date.init
    ) throws(CookieFileError) {
        var table = CookieTable(limits: limits)
        let loaded = now()
        for cookie in try CookieFile.read(file) where !cookie.isExpired(at: loaded) {
            table.insert(cookie, now: loaded)
        }
        self.table = Locked(table)
        self.now = now
        self.file = CookieFileWriter(file)
    }

    // MARK: CookieStorage

    /// The `Cookie` field for `request`: RFC 6265 §5.4's `name=value` pairs,
    /// longest path first.
    public func cookieField(for request: HTTPRequest) -> String? {
        guard let origin = CookieOrigin(request) else { return nil }
        let now = self.now()
        let cookies = table.withLock { $0.cookies(for: origin, now: now) }
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores every `Set-Cookie` of `response`, as received for `request`.
    public func receive(_ response: HTTPResponse, for request: HTTPRequest) {
        let fields = response.headerFields[values: .setCookie]
        guard !fields.isEmpty, let origin = CookieOrigin(request) else { return }
        store(fields, from: origin)
    }

    // MARK: Inspecting and changing

    /// Every cookie, expired ones dropped first; by domain, path and name.
    public var cookies: [Cookie] {
        let now = self.now()
        return table.withLock { table in
            table.removeExpired(now: now)
            return table.all
        }
    }

    /// The cookies a request to `url` would carry, in the order it would carry them.
    public func cookies(for url: URL) -> [Cookie] {
        guard let origin = CookieOrigin(url) else { return [] }
        let now = self.now()
        return table.withLock { $0.cookies(for: origin, now: now) }
    }

    /// Stores `setCookie` (a `Set-Cookie` field value) as if a response from
    /// `url` had sent it, and says what became of it.
    @discardableResult
    public func setCookie(_ setCookie: String, from url: URL) -> CookieUpdate {
        guard let origin = CookieOrigin(url) else { return .rejected(.domainMismatch) }
        return store([setCookie], from: origin).first ?? .rejected(.malformed)
    }

    /// Removes the cookies for which `predicate` holds; returns how many.
    @discardableResult
    public func remove(where predicate: (Cookie) -> Bool) -> Int {
        let (removed, persistent) = table.withLock { table in
            var persistent = false
            let removed = table.removeAll { cookie in
                guard predicate(cookie) else { return false }
                persistent = persistent || cookie.isPersistent
                return true
            }
            return (removed, persistent)
        }
        if persistent { persist() }
        return removed
    }

    /// Removes every cookie (a log-out).
    public func removeAll() { remove { _ in true } }

    /// Removes the session cookies (those without an expiry), as a browser
    /// does when it quits.
    public func removeSessionCookies() { remove { !$0.isPersistent } }

    /// Waits until the file holds every change made so far.
    ///
    /// - Throws: ``CookieFileError`` when the last write failed.
    public func flush() async throws(CookieFileError) {
        try await file?.flush()
    }

    /// The jar in Netscape cookie-file format (what curl's `-b` and `-c`
    /// read and write), persistent cookies only unless `includingSession`.
    public func netscapeText(includingSession: Bool = false) -> String {
        CookieFile.netscape(cookies.filter { includingSession || $0.isPersistent })
    }

    // MARK: Storing

    /// The cookies a file keeps: persistent and unexpired.
    private func persistentCookies() -> [Cookie] {
        let now = self.now()
        return table.withLock { $0.all }.filter { $0.isPersistent && !$0.isExpired(at: now) }
    }

    @discardableResult
    private func store(_ fields: [String], from origin: CookieOrigin) -> [CookieUpdate] {
        let now = self.now()
        let (outcomes, persistentChange) = table.withLock { table in
            var persistentChange = false
            let outcomes = fields.map { field -> CookieUpdate in
                let outcome = table.store(field, from: origin, now: now)
                switch outcome {
                case .stored(let cookie):
                    persistentChange = persistentChange || cookie.isPersistent
                    return .stored(cookie)
                case .deleted:
                    persistentChange = true
                    return .deleted
                case .rejected(let reason):
                    return .rejected(reason)
                }
            }
            return (outcomes, persistentChange)
        }
        if persistentChange { persist() }
        return outcomes
    }

    /// Schedules a write of the persistent cookies, when the jar has a file.
    private func persist() {
        guard let file else { return }
        // The jar stays alive until the write it asked for is done.
        file.schedule { self.persistentCookies() }
    }
}

/// What became of a `Set-Cookie`.
public enum CookieUpdate: Sendable, Hashable {
    /// Stored (new, or replacing the one with its name, domain and path).
    case stored(Cookie)
    /// It had expired: the cookie with its name, domain and path is gone.
    case deleted
    /// Ignored, and why.
    case rejected(CookieRejection)
}

/// Why a jar ignored a `Set-Cookie`.
public struct CookieRejection: Sendable, Hashable, CustomStringConvertible {
    /// A short name for the reason, e.g. `public-suffix`.
    public let name: String
    /// The reason's name.
    public var description: String { name }

    /// No `name=`, an empty name, a control character, over 4 KiB, or a
    /// `Domain` that is not an ASCII host name.
    public static let malformed = CookieRejection(name: "malformed")
    /// `Domain` is a public suffix (`com`, `co.uk`) other than the host itself.
    public static let publicSuffix = CookieRejection(name: "public-suffix")
    /// The request's host is not `Domain` nor under it.
    public static let domainMismatch = CookieRejection(name: "domain-mismatch")
    /// `Secure` from a plain `http` response.
    public static let insecureOrigin = CookieRejection(name: "insecure-origin")
    /// A `__Secure-` or `__Host-` name without what its prefix demands.
    public static let prefix = CookieRejection(name: "prefix")
    /// A plain `http` response naming a cookie that a `Secure` one already has.
    public static let wouldShadowSecure = CookieRejection(name: "would-shadow-secure")
}

extension CookieOrigin {
    init?(_ url: URL) {
        guard let host = url.host(percentEncoded: true), !host.isEmpty else { return nil }
        let scheme = url.scheme?.lowercased()
        self.init(
            host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host,
            path: url.path(percentEncoded: true), isSecure: scheme == "https" || scheme == "wss")
    }
}
