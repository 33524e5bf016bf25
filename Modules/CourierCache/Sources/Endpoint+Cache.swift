public import CourierCore

extension Endpoint {
    /// A copy whose calls read the client's cache in `read` mode, with the
    /// cache's ``ResponseCache/defaults`` for everything else — changed by
    /// `adjust`, which sees them when a call starts.
    ///
    /// ```swift
    /// extension Endpoint where Response == [Product] {
    ///     static let products = Endpoint(.get("products"), on: .api)
    ///         .cache(.alsoNetworkWithCallback) { $0.expiry = .seconds(600) }
    ///         .cacheWrite { !$0.isEmpty }
    /// }
    /// ```
    /// - Parameters:
    ///   - read: When a stored response is delivered (``CacheReadMode``);
    ///     ``CacheReadMode/none`` for an endpoint that only writes.
    ///   - adjust: Changes to the policy: tiers, expiry, key, HTTP's
    ///     headers, credentialed responses.
    /// - Returns: A copy of the endpoint with that cache policy.
    public func cache(_ read: CacheReadMode, _ adjust: (@Sendable (inout CachePolicy) -> Void)? = nil)
        -> Endpoint
    {
        changingCache { overrides in
            overrides.read = read
            if let adjust { overrides.adjustments.append(adjust) }
        }
    }

    /// A copy whose calls use the cache as `policy` says, whatever the
    /// cache's defaults.
    public func cache(_ policy: CachePolicy) -> Endpoint {
        changingCache { overrides in
            overrides.policy = policy
            overrides.read = nil
            overrides.adjustments = []
        }
    }

    /// A copy that writes a response to the cache only when `shouldWrite`
    /// accepts its decoded model — for instance only when the business code
    /// says success, for a model that carries one. It runs after decoding,
    /// so a response that fails validation or decoding is never written in
    /// any case.
    public func cacheWrite(when shouldWrite: @escaping @Sendable (Response) -> Bool) -> Endpoint {
        changingCache { overrides in
            overrides.shouldStore = { model in (model as? Response).map(shouldWrite) ?? false }
        }
    }

    /// A copy whose calls never read or write the cache, whatever the
    /// cache's defaults say.
    public func withoutCache() -> Endpoint {
        var copy = self
        var overrides = CacheOverrides()
        overrides.disabled = true
        copy.spec.attachments[CacheOverrides.self] = overrides
        return copy
    }

    private func changingCache(_ change: (inout CacheOverrides) -> Void) -> Endpoint {
        var copy = self
        var overrides = spec.attachments[CacheOverrides.self] ?? CacheOverrides()
        overrides.disabled = false
        change(&overrides)
        copy.spec.attachments[CacheOverrides.self] = overrides
        return copy
    }
}

/// An endpoint's changes to the cache's defaults, kept on the endpoint.
struct CacheOverrides: EndpointAttachmentKey, Sendable {
    typealias Value = CacheOverrides
    /// The key the overrides are kept under.
    static let id = ObjectIdentifier(CacheOverrides.self)

    var disabled = false
    /// Replaces the cache's defaults.
    var policy: CachePolicy?
    var read: CacheReadMode?
    var adjustments: [@Sendable (inout CachePolicy) -> Void] = []
    var shouldStore: (@Sendable (any Sendable) -> Bool)?
}

/// The policy one call follows: the cache's defaults with the endpoint's changes.
struct ResolvedCachePolicy: Sendable {
    let read: CacheReadMode
    let write: CacheWriteTier
    let expiry: CacheExpiry
    let key: CacheKeyRule
    let followsHTTPHeaders: Bool
    let storesCredentialedResponses: Bool
    let shouldStore: (@Sendable (any Sendable) -> Bool)?
    /// The policy's ``CachePolicy/tags`` (hashed only when a response is stored).
    let tagNames: Set<String>
    let variants: Int

    init(_ defaults: CachePolicy, _ overrides: CacheOverrides?) {
        var policy = overrides?.policy ?? defaults
        if let read = overrides?.read { policy.read = read }
        for adjust in overrides?.adjustments ?? [] { adjust(&policy) }
        read = policy.read
        write = policy.write
        expiry = policy.expiry
        key = policy.key
        followsHTTPHeaders = policy.read == .http || policy.followsHTTPHeaders
        storesCredentialedResponses = policy.storesCredentialedResponses
        shouldStore = overrides?.shouldStore
        tagNames = policy.tags
        variants = policy.variants
    }
}
