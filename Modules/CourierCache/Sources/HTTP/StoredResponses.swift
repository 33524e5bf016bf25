import CourierCore
import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turning responses into entries and back: what may be stored (RFC 9111
/// §3, and the cache's own rules on credentials), what of it is kept, how a
/// 304 refreshes it (§4.3.4), and how `Vary` picks a variant (§4.1).
enum StoredResponses {
    /// Everything that decides whether a response is written.
    struct Rules {
        let followsHTTPHeaders: Bool
        let shared: Bool
        let credentialed: Bool
        let credentials: CredentialFields
        let expiry: CacheExpiry
    }

    /// The entry to write for `response` to `request`, or why it must not be stored.
    static func entry(for response: RawResponse, to request: HTTPRequest, rules: Rules, now: Date)
        -> Result<CacheEntry, CacheSkip>
    {
        guard case .bytes(let body) = response.body else { return .failure(.bodyNotInMemory) }
        // An incomplete response answers only a matching range request
        // (RFC 9111 §3.3–3.4); this cache keeps complete responses only.
        if response.statusCode == 206 { return .failure(.partialContent) }
        // A 304 the caller's own condition got is no response to keep (§3).
        if response.statusCode == 304 { return .failure(.unstorableStatus(304)) }
        let control = CacheControl(response.headerFields)
        // must-understand (§5.2.2.3): only a status whose caching rules this
        // cache follows is stored — and then no-store, meant for caches that
        // do not understand, is set aside.
        if control.mustUnderstand, !understood.contains(response.statusCode) {
            return .failure(.unstorableStatus(response.statusCode))
        }
        if (control.noStore && !control.mustUnderstand) || CacheControl(request.headerFields).noStore {
            return .failure(.noStore)
        }
        guard let variantNames = varyNames(response.headerFields) else { return .failure(.varyAll) }
        if rules.shared {
            if control.isPrivate { return .failure(.privateInSharedCache) }
            // §3.5: a shared cache reuses an authorised response only when it says so.
            if rules.credentialed,
                !(control.isPublic || control.sharedMaxAge != nil || control.mustRevalidate)
            {
                return .failure(.credentialedInSharedCache)
            }
        }
        if rules.followsHTTPHeaders {
            let explicit =
                control.maxAge != nil || control.sharedMaxAge != nil || control.isPublic
                || response.headerFields[.expires] != nil
            guard explicit || heuristicallyCacheable.contains(response.statusCode) else {
                return .failure(.notCacheable(status: response.statusCode))
            }
        }
        var entry = CacheEntry(
            status: response.statusCode,
            headerFields: kept(response.headerFields, sensitive: rules.credentials),
            body: body, storedAt: now, expiresAt: nil,
            variantFields: variant(variantNames, of: request.headerFields, sensitive: rules.credentials))
        entry.expiresAt = expiration(of: entry, rules: rules, now: now)
        return .success(entry)
    }

    /// When an entry written at `now` stops being kept: the endpoint's
    /// expiry — under HTTP's rules never before the response itself stops
    /// being usable (its freshness plus the longer of `stale-while-revalidate`
    /// and `stale-if-error`), so a short expiry never cuts a long `max-age`
    /// or grace period short.
    private static func expiration(of entry: CacheEntry, rules: Rules, now: Date) -> Date? {
        guard let expiry = rules.expiry.expiration(from: now) else { return nil }
        guard rules.followsHTTPHeaders else { return expiry }
        let control = CacheControl(entry.headerFields)
        let usable =
            Freshness.lifetime(of: entry, control, shared: rules.shared)
            + TimeInterval(
                control.forbidsStale(shared: rules.shared)
                    ? 0 : max(control.staleWhileRevalidate ?? 0, control.staleIfError ?? 0))
        return max(expiry, now.addingTimeInterval(usable))
    }

    /// The stored response as the pipeline sees it; used without validation
    /// at `now`, it carries the `Age` the cache computed (RFC 9111 §4: a cache
    /// MUST generate one), not the one it stored. `nil` for a response the
    /// server just confirmed (a 304), whose age starts again.
    static func response(_ entry: CacheEntry, now: Date?) -> RawResponse {
        var fields = entry.headerFields
        if let now { fields[.age] = String(Int(Freshness.age(of: entry, now: now))) }
        return RawResponse(
            head: HTTPResponse(status: .init(code: entry.status), headerFields: fields),
            body: .bytes(entry.body))
    }

    /// The fields that ask the server whether `entry` is still current.
    static func validators(of entry: CacheEntry) -> HTTPFields {
        var fields = HTTPFields()
        if let tag = entry.entityTag { fields[.ifNoneMatch] = tag }
        if let date = entry.lastModified { fields[.ifModifiedSince] = date }
        return fields
    }

    /// `entry` refreshed by a 304 received at `now`: the 304's fields
    /// replace the stored fields of the same names (§4.3.4), its age starts
    /// again, and its expiry is counted from now.
    static func refreshed(_ entry: CacheEntry, by notModified: RawResponse, rules: Rules, now: Date)
        -> CacheEntry
    {
        var refreshed = entry
        let update = kept(notModified.headerFields, sensitive: rules.credentials)
        // Not Content-Length, nor Content-Encoding: the stored body is the
        // decoded one, and a 304 cannot change what it is (§3.2).
        for name in Set(update.map(\.name)) where name != .contentLength && name != .contentEncoding {
            refreshed.headerFields[values: name] = update[values: name]
        }
        refreshed.storedAt = now
        refreshed.expiresAt = expiration(of: refreshed, rules: rules, now: now)
        return refreshed
    }

    /// Whether a 304 may update `entry` (§4.3.4): its strong `ETag` must be
    /// the stored one, a weak `ETag` must match it weakly, and without an
    /// `ETag` a `Last-Modified` must not differ. Otherwise the 304 is about
    /// another representation, and a cache MUST NOT use it to update.
    static func isUpdatable(_ entry: CacheEntry, by notModified: RawResponse) -> Bool {
        if let tag = notModified.headerFields[.eTag] {
            guard let stored = entry.entityTag else { return false }
            if tag.hasPrefix("W/") { return opaque(tag) == opaque(stored) }
            return !stored.hasPrefix("W/") && stored == tag
        }
        if let modified = notModified.headerFields[.lastModified], let stored = entry.lastModified {
            return HTTPDate.parse(modified) == HTTPDate.parse(stored)
        }
        return true
    }

    /// An entity tag without its weakness mark.
    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }

    /// Where the variant of `entry` for a request with `fields` would be
    /// kept beside the one under `key` (the most recent): one of `slots`
    /// keys, chosen by the request's values of the fields `entry` varies on.
    /// `nil` when `entry` varies on nothing (or on `*`). Two variants that
    /// share a slot replace each other — a miss, never a wrong answer: the
    /// entry read from a slot is matched like any other.
    static func variantKey(
        of key: CacheKey, for entry: CacheEntry, _ fields: HTTPFields, slots: Int,
        sensitive: CredentialFields
    ) -> CacheKey? {
        guard let names = varyNames(entry.headerFields), !names.isEmpty else { return nil }
        return variantKey(of: key, values: variant(names, of: fields, sensitive: sensitive), slots: slots)
    }

    /// The place of the stored `entry`'s own variant (see above).
    static func variantKey(of key: CacheKey, storing entry: CacheEntry, slots: Int) -> CacheKey? {
        guard let names = varyNames(entry.headerFields), !names.isEmpty else { return nil }
        return variantKey(of: key, values: entry.variantFields, slots: slots)
    }

    private static func variantKey(of key: CacheKey, values: HTTPFields, slots: Int) -> CacheKey? {
        guard slots > 0 else { return nil }
        let digest = SHA256.hex(EntryCoding.encode(values))
        let slot = (UInt64(digest.suffix(15), radix: 16) ?? 0) % UInt64(slots)
        return CacheKey(hashing: "\(key.digest)\nvariant \(slot)")
    }

    /// Whether `entry` is the variant for a request with `fields` (§4.1).
    static func matches(_ entry: CacheEntry, _ fields: HTTPFields, sensitive: CredentialFields) -> Bool {
        guard let names = varyNames(entry.headerFields) else { return false }
        return names.isEmpty || variant(names, of: fields, sensitive: sensitive) == entry.variantFields
    }

    /// The statuses a response may be stored with without explicit freshness (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [
        200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
    ]

    /// The status codes RFC 9110 defines: the ones whose caching
    /// requirements this cache follows, for `must-understand`.
    static let understood: Set<Int> = Set(
        [200, 201, 202, 203, 204, 205, 300, 301, 302, 303, 305, 307, 308]
            + Array(400...417) + [421, 422, 426] + Array(500...505))

    /// Fields about one connection, never stored (RFC 9110 §7.6.1).
    private static let hopByHop: Set<HTTPField.Name> = [
        .connection, .transferEncoding, .te, .trailer, .upgrade, .proxyAuthenticate,
        HTTPField.Name("Proxy-Authentication-Info"),
        HTTPField.Name("Keep-Alive"), HTTPField.Name("Proxy-Connection"),
    ].compactMap { $0 }.reduce(into: []) { $0.insert($1) }

    /// The response's fields without credentials (``CredentialFields``, `Set-Cookie`
    /// among them) or hop-by-hop fields.
    private static func kept(_ fields: HTTPFields, sensitive: CredentialFields) -> HTTPFields {
        let named = Set(
            fields[values: .connection].flatMap { $0.split(separator: ",") }.compactMap {
                HTTPField.Name($0.trimmingBlanks())
            })
        var kept = HTTPFields()
        for field in fields
        where !sensitive.contains(field.name) && !hopByHop.contains(field.name)
            && !named.contains(field.name)
        {
            kept.append(field)
        }
        return kept
    }

    /// The field names `Vary` lists, lowercased and sorted; `nil` for `*`.
    static func varyNames(_ fields: HTTPFields) -> [HTTPField.Name]? {
        var names: [HTTPField.Name] = []
        for value in fields[values: .vary] {
            for item in value.split(separator: ",") {
                let name = item.trimmingBlanks()
                if name == "*" { return nil }
                if let field = HTTPField.Name(name.lowercased()), !names.contains(field) {
                    names.append(field)
                }
            }
        }
        return names.sorted { $0.canonicalName < $1.canonicalName }
    }

    /// A request's values of the `names` fields; a credential as its digest.
    private static func variant(
        _ names: [HTTPField.Name], of fields: HTTPFields, sensitive: CredentialFields
    )
        -> HTTPFields
    {
        var variant = HTTPFields()
        for name in names {
            let values = fields[values: name]
            guard !values.isEmpty else { continue }
            let value = values.joined(separator: ", ")
            let isSecret = sensitive.contains(name)
            variant.append(
                HTTPField(name: name, value: isSecret ? "sha256:" + SHA256.hex(Array(value.utf8)) : value))
        }
        return variant
    }
}
