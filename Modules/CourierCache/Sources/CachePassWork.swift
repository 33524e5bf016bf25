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
    private let spec: EndpointSpec
    private var parameters: Parameters? { spec.content.parameters }
    private let state = Locked(State())

    private struct State {
        /// The key once ``read(_:identity:)`` made one; without one the pass neither
        /// reads nor writes.
        var key: CacheKey?
        /// Whether the request carried a credential.
        var credentialed = false
        /// What the later components declared, as ``read(_:identity:)`` was told.
        var identity = PassIdentity.addsNothing
        /// The stored entry a revalidation was sent for.
        var revalidating: CacheEntry?
        /// The stored entry the network was asked instead of, which may
        /// answer if the network fails (`stale-if-error`).
        var fallback: CacheEntry?
        /// What ``decoded(_:)`` may write.
        var candidate: Candidate?
    }

    private enum Candidate {
        /// The network's response, with the request it answered.
        case network(RawResponse, HTTPRequest)
        /// The stored entry, refreshed by a 304.
        case revalidated(CacheEntry)
    }

    init(cache: ResponseCache, policy: ResolvedCachePolicy, call: CacheCall, spec: EndpointSpec) {
        self.cache = cache
        self.policy = policy
        self.call = call
        self.spec = spec
    }

    // MARK: - CachePass

    func read(_ request: OutgoingRequest, identity: PassIdentity) async -> CacheRead {
        state.withLock { $0.identity = identity }
        let head = request.head
        // HTTP's rules store GET and HEAD only; other methods may invalidate (see `received`).
        if policy.followsHTTPHeaders, head.method != .get, head.method != .head {
            report(.skipped(.method(head.method.rawValue)))
            return .network([:])
        }
        let key: CacheKey
        let credentialed: Bool
        switch self.key(for: request, identity) {
        case .success(let keyed): (key, credentialed) = keyed
        case .failure(let reason):
            report(.skipped(reason))
            return .network([:])
        }
        state.withLock { state in
            state.key = key
            state.credentialed = credentialed
        }
        let reads =
            (policy.read != .none && !call.skipsReading)
            || (call.role == .backgroundRefresh && policy.followsHTTPHeaders)
        guard reads else { return .network([:]) }
        let now = cache.clock.date
        var entry = await lookup(key, now: now)
        if let stored = entry,
            !StoredResponses.matches(stored, head.headerFields, sensitive: call.credentials)
        {
            // Not the most recent variant: perhaps one kept beside it.
            entry = nil
            if let slot = StoredResponses.variantKey(
                of: key, for: stored, head.headerFields, slots: policy.variants,
                sensitive: call.credentials),
                let variant = await lookup(slot, now: now),
                StoredResponses.matches(variant, head.headerFields, sensitive: call.credentials)
            {
                entry = variant
            }
        }
        let requestControl = CacheControl(request: head.headerFields)
        let stored = freshness(of: entry, request: requestControl, now: now)
        // RFC 9111 §5.2.1.7: a stored response, or a 504 — never the network.
        let onlyIfCached =
            policy.followsHTTPHeaders && requestControl.onlyIfCached && call.role != .backgroundRefresh
        let canRevalidate =
            policy.followsHTTPHeaders && (entry?.entityTag != nil || entry?.lastModified != nil)
        let action = CacheReadDecision.decide(
            mode: policy.read, role: call.role, stored: stored, canRevalidate: canRevalidate)
        guard let entry else {
            if call.role != .backgroundRefresh { countMiss() }
            return onlyIfCached ? .generated(Self.gatewayTimeout) : .network([:])
        }
        switch action {
        case .network(let revalidate):
            if call.role != .backgroundRefresh { countMiss() }
            if onlyIfCached { return .generated(Self.gatewayTimeout) }
            if policy.followsHTTPHeaders { state.withLock { $0.fallback = entry } }
            return .network(revalidate ? revalidation(of: entry) : [:])
        case .answer(let refresh):
            countHit()
            return .answer(StoredResponses.response(entry, now: now), refresh: refresh)
        case .deliverFirst(let revalidate):
            countHit()
            return .deliverFirst(
                StoredResponses.response(entry, now: now), then: revalidate ? revalidation(of: entry) : [:])
        }
    }

    func received(_ result: Result<RawResponse, CourierError>, sent: OutgoingRequest) async -> CacheReceipt {
        let (key, revalidating) = state.withLock { ($0.key, $0.revalidating) }
        if let entry = revalidating, let notModified = Self.notModified(result) {
            state.withLock { $0.revalidating = nil }
            // A 304 for another representation updates nothing (RFC 9111 §4.3.4).
            guard StoredResponses.isUpdatable(entry, by: notModified) else {
                return .resend(without: [.ifNoneMatch, .ifModifiedSince])
            }
            let refreshed = StoredResponses.refreshed(
                entry, by: notModified, rules: rules, now: cache.clock.date)
            state.withLock { $0.candidate = .revalidated(refreshed) }
            cache.counters.count(.revalidation)
            var response = StoredResponses.response(refreshed, now: nil)
            response.metrics = notModified.metrics
            response.cacheOrigin = .revalidated
            return .result(.success(response))
        }
        if let fallback = state.withLock({ $0.fallback }),
            let stale = staleOnError(result, fallback, sent: sent)
        {
            return .result(.success(stale))
        }
        guard case .success(var response) = result else { return .result(result) }
        response.cacheOrigin = .network
        if key != nil { state.withLock { $0.candidate = .network(response, sent.head) } }
        if policy.followsHTTPHeaders, !InvalidationPass.safeMethods.contains(sent.head.method),
            (200..<400).contains(response.statusCode)
        {
            cache.invalidate(after: sent.head, response)
        }
        return .result(.success(response))
    }

    func decoded(_ model: any Sendable) {
        let (key, candidate) = state.withLock { ($0.key, $0.candidate) }
        guard let key, let candidate, !policy.write.isEmpty else { return }
        if let shouldStore = policy.shouldStore, !shouldStore(model) {
            report(.skipped(.refusedByPredicate))
            return
        }
        let now = cache.clock.date
        let entry: CacheEntry
        switch candidate {
        case .revalidated(let refreshed):
            entry = refreshed
        case .network(let response, let request):
            switch StoredResponses.entry(for: response, to: request, rules: rules, now: now) {
            case .success(var made):
                made.tags = CacheTag.stored(for: request, endpoint: spec, named: policy.tagNames)
                entry = made
            case .failure(let reason):
                report(.skipped(reason))
                return
            }
        }
        cache.write(entry, for: key, to: policy.write)
        // A response with Vary is also kept in its variant's place, so that
        // the next variant stored under the key does not replace it.
        if let slot = StoredResponses.variantKey(of: key, storing: entry, slots: policy.variants) {
            cache.write(entry, for: slot, to: policy.write)
        }
        report(.stored)
    }

    func rejected(_ error: CourierError) {
        guard let key = state.withLock({ $0.key }) else { return }
        cache.counters.count(.rejected)
        cache.forget(key)
    }

    func refreshInBackground(_ refresh: @escaping @Sendable () async -> CourierError?) {
        cache.counters.count(.backgroundRefresh)
        cache.refreshes.run { [cache, call] in
            guard let error = await refresh() else { return }
            cache.counters.count(.backgroundRefreshFailure)
            cache.report(.refreshFailed(error.code), call)
        }
    }

    // MARK: - Steps

    /// The entry under `key`: memory first, without suspending; the disk
    /// only on a miss.
    private func lookup(_ key: CacheKey, now: Date) async -> CacheEntry? {
        if let entry = cache.memory?.cachedEntry(for: key, now: now) { return entry }
        return await cache.diskLookup(key, now: now, promote: policy.write.contains(.memory))
    }

    private func countHit() {
        cache.counters.count(.hit)
        report(.hit)
    }

    private func countMiss() {
        cache.counters.count(.miss)
        report(.miss)
    }

    /// Tells the cache's observer and its log what this pass did.
    private func report(_ outcome: CacheEvent.Outcome) {
        cache.report(outcome, call)
    }

    /// The request's key and whether it is someone's, or why this pass
    /// must neither read nor write: a credentialed request the endpoint did
    /// not opt in for, or one whose owner the cache cannot tell (added after
    /// it by a per-attempt interceptor or plugin that did not declare
    /// whose), or a body that cannot be read twice.
    private func key(for request: OutgoingRequest, _ identity: PassIdentity) -> Result<
        (key: CacheKey, credentialed: Bool), CacheSkip
    > {
        let owner = RequestOwner(
            request, identity: identity, call: call)
        let digest: String?
        switch owner {
        case .unknown(let reason): return .failure(reason)
        case .nobody: digest = nil
        case .credential(let credential, let field):
            guard policy.storesCredentialedResponses else { return .failure(.credentialed(field: field)) }
            digest = credential
        }
        guard
            let key = CacheKeyBuilder.key(
                for: request, parameters: parameters, rule: policy.key, credential: digest)
        else { return .failure(.unkeyableBody) }
        return .success((key, digest != nil))
    }

    /// What `entry` may be used for now, for a request with `control`.
    private func freshness(of entry: CacheEntry?, request control: CacheControl, now: Date) -> StoredState {
        guard let entry else { return .absent }
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
            credentialed: state.withLock { $0.credentialed }, credentials: call.credentials,
            expiry: policy.expiry)
    }

    /// The stored `entry`, to answer in place of `result` when that is an
    /// error RFC 5861 §4 names — a failed exchange, or a 500, 502, 503 or
    /// 504 — and `stale-if-error` allows it now; `nil` to pass `result` on.
    private func staleOnError(
        _ result: Result<RawResponse, CourierError>, _ entry: CacheEntry, sent: OutgoingRequest
    ) -> RawResponse? {
        let code: CourierError.Code
        switch result {
        case .success(let response):
            guard Self.errorStatuses.contains(response.statusCode) else { return nil }
            code = .status
        case .failure(let error):
            if let status = error.response?.statusCode {
                guard Self.errorStatuses.contains(status) else { return nil }
                code = .status
            } else {
                guard Self.networkFailures.contains(error.code) else { return nil }
                code = error.code
            }
        }
        let now = cache.clock.date
        guard
            Freshness.servesOnError(
                entry, request: CacheControl(request: sent.head.headerFields), now: now,
                shared: cache.sharing.isShared
            )
        else { return nil }
        cache.counters.count(.staleOnError)
        cache.counters.count(.hit)
        report(.servedStaleOnError(code))
        var response = StoredResponses.response(entry, now: now)
        response.cacheOrigin = .storage(refresh: false)
        return response
    }

    /// What `only-if-cached` gets when nothing stored may answer (RFC 9111
    /// §5.2.1.7): 504 Gateway Timeout, made by the cache.
    private static var gatewayTimeout: RawResponse {
        RawResponse(
            head: HTTPResponse(status: .gatewayTimeout), body: .bytes([]), metrics: TransportMetrics())
    }

    /// The statuses RFC 5861 §4 counts as errors.
    private static let errorStatuses: Set<Int> = [500, 502, 503, 504]
    /// Failures in which the origin could not be reached or did not answer.
    private static let networkFailures: Set<CourierError.Code> = [
        .transport, .timedOut, .offline, .retriesExhausted,
    ]

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
