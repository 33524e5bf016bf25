@_spi(Locking) import CourierCore
import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The cache's work in one pass of a call, in the order the pipeline asks:
/// ``read(_:identity:)`` (key, lookup, the read mode's decision), ``received(_:sent:)``
/// (a 304 becomes the stored response refreshed; a network response becomes
/// the candidate to write), ``decoded(_:)`` (the write, if the model passes
/// the endpoint's predicate and the response may be stored).
final class CachePassWork: CachePass {
    private let cache: ResponseCache
    private let policy: ResolvedCachePolicy
    private let call: CacheCall
    private let parameters: Parameters?
    private let state = Locked(State())

    private struct State {
        /// The key once ``read(_:identity:)`` made one; without one the pass neither
        /// reads nor writes.
        var key: CacheKey?
        /// Whether the request carried a credential.
        var credentialed = false
        /// What the later components declared, as ``read(_:identity:)`` was told.
        var identity = PassIdentity.declared(nil)
        /// The stored entry a revalidation was sent for.
        var revalidating: CacheEntry?
        /// What ``decoded(_:)`` may write.
        var candidate: Candidate?
    }

    private enum Candidate {
        /// The network's response, with the request it answered.
        case network(RawResponse, HTTPRequest)
        /// The stored entry, refreshed by a 304.
        case revalidated(CacheEntry)
    }

    init(cache: ResponseCache, policy: ResolvedCachePolicy, call: CacheCall, parameters: Parameters?) {
        self.cache = cache
        self.policy = policy
        self.call = call
        self.parameters = parameters
    }

    // MARK: - CachePass

    func read(_ request: OutgoingRequest, identity: PassIdentity) async -> CacheRead {
        state.withLock { $0.identity = identity }
        let head = request.head
        // HTTP's rules store GET and HEAD only; other methods may invalidate (see `received`).
        if policy.followsHTTPHeaders, head.method != .get, head.method != .head { return .network([:]) }
        guard let (key, credentialed) = key(for: request, identity) else { return .network([:]) }
        state.withLock { state in
            state.key = key
            state.credentialed = credentialed
        }
        let reads =
            (policy.read != .none && !call.skipsReading)
            || (call.role == .backgroundRefresh && policy.followsHTTPHeaders)
        guard reads else { return .network([:]) }
        let now = cache.clock.date
        // Memory first, without suspending; the disk only on a miss.
        var entry = cache.memory?.cachedEntry(for: key, now: now)
        if entry == nil {
            entry = await cache.diskLookup(key, now: now, promote: policy.write.contains(.memory))
        }
        if let stored = entry,
            !StoredResponses.matches(stored, head.headerFields, sensitive: cache.sensitiveFields)
        {
            entry = nil
        }
        let stored = freshness(of: entry, request: head, now: now)
        let canRevalidate =
            policy.followsHTTPHeaders && (entry?.entityTag != nil || entry?.lastModified != nil)
        let action = CacheReadDecision.decide(
            mode: policy.read, role: call.role, stored: stored, canRevalidate: canRevalidate)
        guard let entry else {
            if call.role != .backgroundRefresh { cache.counters.count(.miss) }
            return .network([:])
        }
        switch action {
        case .network(let revalidate):
            if call.role != .backgroundRefresh { cache.counters.count(.miss) }
            return .network(revalidate ? revalidation(of: entry) : [:])
        case .answer(let refresh):
            cache.counters.count(.hit)
            return .answer(StoredResponses.response(entry), refresh: refresh)
        case .deliverFirst(let revalidate):
            cache.counters.count(.hit)
            return .deliverFirst(
                StoredResponses.response(entry), then: revalidate ? revalidation(of: entry) : [:])
        }
    }

    func received(_ result: Result<RawResponse, CourierError>, sent: OutgoingRequest) async
        -> Result<RawResponse, CourierError>
    {
        let (key, revalidating) = state.withLock { ($0.key, $0.revalidating) }
        if let entry = revalidating, let notModified = Self.notModified(result) {
            let refreshed = StoredResponses.refreshed(
                entry, by: notModified, rules: rules, now: cache.clock.date)
            state.withLock { $0.candidate = .revalidated(refreshed) }
            cache.counters.count(.revalidation)
            var response = StoredResponses.response(refreshed)
            response.metrics = notModified.metrics
            response.cacheOrigin = .revalidated
            return .success(response)
        }
        guard case .success(var response) = result else { return result }
        response.cacheOrigin = .network
        if key != nil { state.withLock { $0.candidate = .network(response, sent.head) } }
        if policy.followsHTTPHeaders, Self.unsafeMethods.contains(sent.head.method),
            (200..<400).contains(response.statusCode)
        {
            invalidateReads(of: sent)
        }
        return .success(response)
    }

    func decoded(_ model: any Sendable) {
        let (key, candidate) = state.withLock { ($0.key, $0.candidate) }
        guard let key, let candidate, !policy.write.isEmpty else { return }
        if let shouldStore = policy.shouldStore, !shouldStore(model) { return }
        let now = cache.clock.date
        let entry: CacheEntry
        switch candidate {
        case .revalidated(let refreshed):
            entry = refreshed
        case .network(let response, let request):
            guard let made = StoredResponses.entry(for: response, to: request, rules: rules, now: now) else {
                return
            }
            entry = made
        }
        cache.write(entry, for: key, to: policy.write)
    }

    func rejected(_ error: CourierError) {
        guard let key = state.withLock({ $0.key }) else { return }
        cache.counters.count(.rejected)
        cache.forget(key)
    }

    func refreshInBackground(_ refresh: @escaping @Sendable () async -> Void) {
        cache.counters.count(.backgroundRefresh)
        cache.refreshes.run(refresh)
    }

    // MARK: - Steps

    /// The request's key, or `nil` when this pass must neither read nor
    /// write: a credentialed request the endpoint did not opt in for, or
    /// whose owner the cache cannot tell (added after it by a per-attempt
    /// interceptor or plugin that did not declare whose), or a body that
    /// cannot be read twice.
    private func key(for request: OutgoingRequest, _ identity: PassIdentity) -> (
        key: CacheKey, credentialed: Bool
    )? {
        let credential = credentialDigest(request, identity)
        if credential.credentialed {
            guard policy.storesCredentialedResponses, let digest = credential.digest,
                let key = CacheKeyBuilder.key(
                    for: request, parameters: parameters, rule: policy.key, credential: digest)
            else { return nil }
            return (key, true)
        }
        return CacheKeyBuilder.key(for: request, parameters: parameters, rule: policy.key, credential: nil)
            .map { ($0, false) }
    }

    /// Whether the request is someone's, and the digest of the credential
    /// that says whose (`nil` when the cache cannot see it).
    private func credentialDigest(_ request: OutgoingRequest, _ identity: PassIdentity) -> (
        credentialed: Bool, digest: String?
    ) {
        let head = request.head
        var lines: [String] = []
        // The principal an authenticator signed the credential fields for
        // stands for them: a refreshed token keeps its user's entries.
        let credentials = CredentialFields.identity(of: request)
        if credentials.signed { lines.append(credentials.lines) }
        for field in head.headerFields where isSensitive(field.name) {
            if credentials.signed, CredentialFields.names.contains(field.name) { continue }
            lines.append("\(field.name.canonicalName): \(field.value)")
        }
        // The jar's cookies join the request in the transport, after the
        // cache: whose the response is depends on them all the same.
        if let jar = call.cookies?.cookieField(for: head) { lines.append("Cookie (jar): \(jar)") }
        // Added after the cache saw the request, by per-attempt interceptors
        // and plugins: whose, they declared (CredentialIdentity).
        if let principals = identity.principals { lines.append("Declared: \(principals)") }
        // One of them may add a credential and did not say whose: the cache
        // cannot tell whose the response is.
        if !identity.isDeclared { return (true, nil) }
        guard !lines.isEmpty || (call.authenticates && call.authenticatedPerCall) else {
            return (false, nil)
        }
        if lines.isEmpty { return (true, nil) }
        return (true, SHA256.hex(Array(lines.sorted().joined(separator: "\n").utf8)))
    }

    private func isSensitive(_ name: HTTPField.Name) -> Bool {
        CredentialFields.names.contains(name) || cache.sensitiveFields.contains(name)
    }

    /// What `entry` may be used for now.
    private func freshness(of entry: CacheEntry?, request: HTTPRequest, now: Date) -> StoredState {
        guard let entry else { return .absent }
        let control = CacheControl(request.headerFields)
        if policy.followsHTTPHeaders {
            return Freshness.state(of: entry, request: control, now: now, shared: cache.sharing.isShared)
        }
        return control.noCache ? .stale : .fresh
    }

    private func revalidation(of entry: CacheEntry) -> HTTPFields {
        state.withLock { $0.revalidating = entry }
        return StoredResponses.validators(of: entry)
    }

    private var rules: StoredResponses.Rules {
        StoredResponses.Rules(
            followsHTTPHeaders: policy.followsHTTPHeaders, shared: cache.sharing.isShared,
            credentialed: state.withLock { $0.credentialed }, sensitiveFields: cache.sensitiveFields,
            expiry: policy.expiry)
    }

    /// After a successful unsafe request, the stored response to a GET of
    /// the same URL is out of date (RFC 9111 §4.4).
    private func invalidateReads(of sent: OutgoingRequest) {
        var read = sent
        read.head.method = .get
        read.body = nil
        let credential = credentialDigest(read, state.withLock { $0.identity })
        guard !credential.credentialed || credential.digest != nil,
            let key = CacheKeyBuilder.key(
                for: read, parameters: nil, rule: policy.key,
                credential: credential.digest)
        else { return }
        cache.forget(key)
    }

    private static let unsafeMethods: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]

    /// The 304 in `result`, whether validation let it through or refused it.
    private static func notModified(_ result: Result<RawResponse, CourierError>) -> RawResponse? {
        switch result {
        case .success(let response) where response.statusCode == 304: response
        case .failure(let error) where error.code == .status && error.response?.statusCode == 304:
            error.response
        default: nil
        }
    }
}
