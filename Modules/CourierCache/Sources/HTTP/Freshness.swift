import CourierCore
import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a stored response may be used for now.
enum StoredState: Equatable, Sendable {
    /// Nothing usable is stored.
    case absent
    /// Usable without asking the server.
    case fresh
    /// Stale, but within `stale-while-revalidate`: usable while the server
    /// is asked in the background.
    case staleServable
    /// Stale: the server must be asked (a revalidation, when it has validators).
    case stale
}

/// Freshness by RFC 9111 §4.2, for entries of endpoints that follow HTTP's
/// caching headers. No heuristic freshness: a response without an explicit
/// lifetime is stale at once (revalidated on every use when it has a
/// validator) — a client cache that guesses serves what the server never
/// said it could.
enum Freshness {
    /// How long the response is fresh for (§4.2.1).
    static func lifetime(of entry: CacheEntry, _ control: CacheControl, shared: Bool) -> TimeInterval {
        if control.noCache || control.hasInvalidAge { return 0 }
        if shared, let seconds = control.sharedMaxAge { return TimeInterval(seconds) }
        if let seconds = control.maxAge { return TimeInterval(seconds) }
        let expires = entry.headerFields[values: .expires]
        if !expires.isEmpty {
            // An invalid date — "0", any shape but RFC 9110's three, or two
            // Expires fields — means already expired (RFC 9111 §5.3).
            guard expires.count == 1, let date = HTTPDate.parse(expires[0]) else { return 0 }
            return max(0, date.timeIntervalSince(dateValue(of: entry)))
        }
        return 0
    }

    /// How old the response is at `now` (§4.2.3, without the request's
    /// round trip, which the cache does not record).
    static func age(of entry: CacheEntry, now: Date) -> TimeInterval {
        let apparent = max(0, entry.storedAt.timeIntervalSince(dateValue(of: entry)))
        let stated = statedAge(entry.headerFields).map(TimeInterval.init) ?? 0
        return max(apparent, stated) + max(0, now.timeIntervalSince(entry.storedAt))
    }

    /// What the entry may be used for at `now` for a request with `request` directives.
    static func state(of entry: CacheEntry, request: CacheControl, now: Date, shared: Bool) -> StoredState {
        let control = CacheControl(entry.headerFields)
        let lifetime = lifetime(of: entry, control, shared: shared)
        let age = age(of: entry, now: now)
        if request.noCache { return .stale }
        if let limit = request.maxAge, age > TimeInterval(limit) { return .stale }
        if let margin = request.minFresh, age + TimeInterval(margin) >= lifetime { return .stale }
        if age < lifetime { return .fresh }
        // The client takes it stale (max-stale), unless the response forbids that.
        if let tolerance = request.maxStale, !control.forbidsStale(shared: shared), !control.noCache,
            tolerance == Int.max || age < lifetime + TimeInterval(tolerance)
        {
            return .fresh
        }
        if !control.forbidsStale(shared: shared), !control.noCache, let grace = control.staleWhileRevalidate,
            age < lifetime + TimeInterval(grace)
        {
            return .staleServable
        }
        return .stale
    }

    /// Whether `entry` may answer at `now` in place of an error (a failed
    /// exchange, or a 500, 502, 503 or 504): RFC 5861 §4's `stale-if-error`
    /// on the response or the request, within its seconds past the end of
    /// freshness. Never against `must-revalidate` (`proxy-revalidate` in a
    /// shared cache) or `no-cache` (RFC 9111
    /// §4.2.4: a cache MUST NOT serve those stale), nor when the request
    /// asked for `no-cache`.
    static func servesOnError(_ entry: CacheEntry, request: CacheControl, now: Date, shared: Bool) -> Bool {
        let control = CacheControl(entry.headerFields)
        guard !control.forbidsStale(shared: shared), !control.noCache, !request.noCache else { return false }
        // Either side may allow it; the longer grace counts.
        guard let grace = [request.staleIfError, control.staleIfError].compactMap({ $0 }).max() else {
            return false
        }
        let lifetime = lifetime(of: entry, control, shared: shared)
        return age(of: entry, now: now) < lifetime + TimeInterval(grace)
    }

    /// The `Age` field's value (RFC 9111 §5.1): the first member of a list
    /// (two `Age` lines, or `Age: 7200, 0`); `nil` — ignored — when that is
    /// not a non-negative integer.
    static func statedAge(_ fields: HTTPFields) -> Int? {
        guard let value = fields[values: .age].first else { return nil }
        let first = value.split(separator: ",", omittingEmptySubsequences: false).first ?? ""
        let text = String(first).trimmingBlanks()
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text.prefix(10))
    }

    /// The response's `Date`, or when it was received.
    private static func dateValue(of entry: CacheEntry) -> Date {
        entry.headerFields[.date].flatMap(HTTPDate.parse) ?? entry.storedAt
    }
}
