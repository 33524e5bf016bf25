import CourierCore
import Foundation

/// The cookies of a jar, with RFC 6265 §5.3's storage rules and §5.4's
/// retrieval rules. A value type, guarded by ``CookieJar``'s lock.
struct CookieTable {
    /// Cookies by their ``Cookie/domain``, so a request looks only at the
    /// buckets of its host and the host's parent domains.
    private var buckets: [String: [Cookie.Identity: Entry]] = [:]
    private(set) var count = 0
    /// Gives cookies of equal creation time a stable order: the order they were set in.
    private var nextOrder: UInt64 = 0

    private struct Entry {
        var cookie: Cookie
        /// When it was first set, among cookies set at the same time.
        var order: UInt64
    }
    let limits: CookieJar.Limits

    init(limits: CookieJar.Limits) { self.limits = limits }

    /// What storing a `Set-Cookie` did.
    enum Outcome: Equatable {
        /// Stored (new, or replacing one with the same name, domain and path).
        case stored(Cookie)
        /// Already expired: any cookie with its name, domain and path is gone.
        case deleted
        /// Ignored, and why.
        case rejected(CookieRejection)
    }

    /// RFC 6265 §5.3 (with RFC 6265bis' Secure, prefix and size rules): stores what `field` sets for `origin`.
    mutating func store(_ field: String, from origin: CookieOrigin, now: Date) -> Outcome {
        guard let parsed = SetCookie.parse(field) else { return .rejected(.malformed) }
        var expires: Date?
        let cap = now.addingTimeInterval(limits.maxLifetime.seconds)
        if let maxAge = parsed.maxAge {
            expires = maxAge <= 0 ? .distantPast : min(cap, now.addingTimeInterval(TimeInterval(maxAge)))
        } else if let date = parsed.expires {
            expires = min(cap, date)
        }
        var domain = parsed.domain ?? ""
        if !domain.isEmpty, PublicSuffixList.isPublicSuffix(domain) {
            guard domain == origin.host else { return .rejected(.publicSuffix) }
            domain = ""  // a host that is itself a public suffix may still set a host-only cookie
        }
        let hostOnly = domain.isEmpty
        if hostOnly {
            domain = origin.host
        } else if !CookieOrigin.domainMatches(origin.host, domain) {
            return .rejected(.domainMismatch)
        }
        let path = parsed.path ?? origin.defaultPath
        if parsed.secure, !origin.isSecure { return .rejected(.insecureOrigin) }
        let name = parsed.name.lowercased()
        if name.hasPrefix("__secure-"), !parsed.secure { return .rejected(.prefix) }
        if name.hasPrefix("__host-"), !parsed.secure || !hostOnly || parsed.path != "/" {
            return .rejected(.prefix)
        }
        if !origin.isSecure, shadowsSecureCookie(named: parsed.name, domain: domain, path: path, now: now) {
            return .rejected(.wouldShadowSecure)
        }
        var cookie = Cookie(
            name: parsed.name, value: parsed.value, domain: domain, hostOnly: hostOnly, path: path,
            secure: parsed.secure, httpOnly: parsed.httpOnly, sameSite: parsed.sameSite, expires: expires,
            created: now)
        let old = removeEntry(cookie.identity)
        if let old { cookie.created = old.cookie.created }
        if cookie.isExpired(at: now) { return .deleted }
        insert(cookie, now: now, order: old?.order)
        return .stored(cookie)
    }

    /// RFC 6265bis §5.7 step 16: a response over plain HTTP may not set a
    /// cookie that a `Secure` one of the same name would otherwise be sent beside.
    private func shadowsSecureCookie(named name: String, domain: String, path: String, now: Date) -> Bool {
        buckets.values.contains { bucket in
            bucket.values.lazy.map(\.cookie).contains { existing in
                existing.secure && existing.name == name && !existing.isExpired(at: now)
                    && (CookieOrigin.domainMatches(existing.domain, domain)
                        || CookieOrigin.domainMatches(domain, existing.domain))
                    && CookieOrigin.pathMatches(path, existing.path)
            }
        }
    }

    /// Adds `cookie` (its identity must be free), then enforces the limits:
    /// expired cookies go first, then the least recently used.
    mutating func insert(_ cookie: Cookie, now: Date, order: UInt64? = nil) {
        let order = order ?? nextOrder
        nextOrder = max(nextOrder, order + 1)
        buckets[cookie.domain, default: [:]][cookie.identity] = Entry(cookie: cookie, order: order)
        count += 1
        if let bucket = buckets[cookie.domain], bucket.count > limits.perDomain {
            removeExpired(now: now)
            evictLeastRecentlyUsed(
                (buckets[cookie.domain] ?? [:]).values.map(\.cookie), beyond: limits.perDomain,
                keeping: cookie.identity)
        }
        if count > limits.total {
            removeExpired(now: now)
            evictLeastRecentlyUsed(all, beyond: limits.total, keeping: cookie.identity)
        }
    }

    private mutating func evictLeastRecentlyUsed(
        _ cookies: some Collection<Cookie>, beyond limit: Int, keeping kept: Cookie.Identity
    ) {
        guard cookies.count > limit else { return }
        let oldest = cookies.filter { $0.identity != kept }.sorted { $0.lastAccessed < $1.lastAccessed }
        for cookie in oldest.prefix(cookies.count - limit) { remove(cookie.identity) }
    }

    /// Removes the cookie with `identity`.
    mutating func remove(_ identity: Cookie.Identity) { removeEntry(identity) }

    @discardableResult
    private mutating func removeEntry(_ identity: Cookie.Identity) -> Entry? {
        guard let removed = buckets[identity.domain]?.removeValue(forKey: identity) else { return nil }
        if buckets[identity.domain]?.isEmpty == true { buckets[identity.domain] = nil }
        count -= 1
        return removed
    }

    /// Removes every cookie for which `predicate` holds; returns how many.
    @discardableResult
    mutating func removeAll(where predicate: (Cookie) -> Bool) -> Int {
        let doomed = all.filter(predicate)
        for cookie in doomed { remove(cookie.identity) }
        return doomed.count
    }

    @discardableResult
    mutating func removeExpired(now: Date) -> Int { removeAll { $0.isExpired(at: now) } }

    /// RFC 6265 §5.4: the cookies to send to `origin`, longest path first,
    /// then oldest first; each one's ``Cookie/lastAccessed`` becomes `now`.
    mutating func cookies(for origin: CookieOrigin, now: Date) -> [Cookie] {
        guard count > 0 else { return [] }
        var found: [Entry] = []
        var expired: [Cookie.Identity] = []
        for domain in Self.candidateDomains(of: origin) {
            guard let bucket = buckets[domain] else { continue }
            for entry in bucket.values {
                let cookie = entry.cookie
                guard !cookie.hostOnly || cookie.domain == origin.host else { continue }
                if cookie.isExpired(at: now) {
                    expired.append(cookie.identity)
                    continue
                }
                guard CookieOrigin.pathMatches(origin.path, cookie.path), !cookie.secure || origin.isSecure
                else { continue }
                found.append(entry)
            }
        }
        for identity in expired { remove(identity) }
        found.sort { first, second in
            let (a, b) = (first.cookie, second.cookie)
            if a.path.utf8.count != b.path.utf8.count { return a.path.utf8.count > b.path.utf8.count }
            if a.created != b.created { return a.created < b.created }
            return first.order < second.order
        }
        return found.map { entry in
            buckets[entry.cookie.domain]?[entry.cookie.identity]?.cookie.lastAccessed = now
            var cookie = entry.cookie
            cookie.lastAccessed = now
            return cookie
        }
    }

    /// The host and each domain above it (`a.b.example` → `a.b.example`,
    /// `b.example`, `example`); an IP address only itself.
    private static func candidateDomains(of origin: CookieOrigin) -> [String] {
        guard !origin.hostIsIPAddress else { return [origin.host] }
        var domains = [origin.host]
        var rest = Substring(origin.host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { domains.append(String(rest)) }
        }
        return domains
    }

    /// Every cookie, by domain, then path, then name.
    var all: [Cookie] {
        buckets.values.flatMap { $0.values.map(\.cookie) }.sorted {
            ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name)
        }
    }
}
