package import HTTPTypes

/// The seam a response cache plugs into the pipeline (`CourierCache`'s
/// `ResponseCache` is the one there is). Package-level: CourierCore knows
/// that a call may be answered from storage, not how anything is stored or
/// when it is fresh.
///
/// The pipeline asks the cache once per pass, after encoding
/// (``begin(_:_:)``); a cache that answers `nil` stays out of the pass and
/// costs it nothing more. Otherwise the pass's ``CachePass`` is the
/// innermost step of the per-call chain (`CallStage.responseCache`, after the per-call
/// interceptors have signed the request, before the attempt loop), and
/// hears of the decoded model afterwards.
package protocol ResponseCaching: Sendable {
    /// The cache's part in one pass of a call of `spec`, or `nil` for none.
    func begin(_ spec: EndpointSpec, _ call: CacheCall) -> (any CachePass)?
}

/// What the pipeline tells the cache about the call a pass belongs to.
package struct CacheCall: Sendable {
    /// The call's number, for the cache's events and log.
    package let callID: UInt64
    /// The endpoint's route, named (`GET users/{id}`) only when an event is reported.
    package let route: Route
    /// Whether the endpoint's calls are authenticated
    /// (``CallContext/authenticates``).
    package let authenticates: Bool
    /// Who is asking, and for how many deliveries.
    package let role: CacheRole
    /// Whether an authenticating interceptor (`Authenticator`, `.bearer`)
    /// runs in the per-call tier: its credential is on the request the
    /// cache sees.
    package let authenticatedPerCall: Bool
    /// The client's cookie jar: the transport adds its cookies after the
    /// cache saw the request, so the cache asks it what they will be.
    package let cookies: (any CookieStorage)?
    /// Set on the pass that runs again after a stored response failed
    /// validation or decoding: the network only, no reading.
    package let skipsReading: Bool
    /// The fields that carry credentials: what makes a request someone's,
    /// and what is never written to a store.
    package let credentials: CredentialFields
}

/// Who runs a call, which decides what a cache may do in it.
package enum CacheRole: Sendable {
    /// `send` or `response`: one result — the last delivery — counts.
    case lastDelivery
    /// A caller that takes every delivery (a stored one first, then the
    /// network's).
    case everyDelivery
    /// A refresh the cache started in the background after answering from
    /// storage: network only, then store.
    case backgroundRefresh
}

/// What the cache decided for one request.
package enum CacheRead: Sendable {
    /// Send it, with these fields added (validators, when revalidating).
    case network(HTTPFields)
    /// Answer the pass with this stored response: no attempt is made. With
    /// `refresh`, the cache asks the network again in the background.
    case answer(RawResponse, refresh: Bool)
    /// Deliver this stored response first (validated and decoded), then
    /// send, with these fields added.
    case deliverFirst(RawResponse, then: HTTPFields)
    /// Answer the pass with this response the cache made, not a stored one
    /// (a 504 for `only-if-cached` with nothing usable): no attempt is
    /// made, and nothing is stored or dropped for it.
    case generated(RawResponse)
}

/// What the cache made of the network's result.
package enum CacheReceipt: Sendable {
    /// The pass's result.
    case result(Result<RawResponse, CourierError>)
    /// A 304 that cannot update the stored response (RFC 9111 §4.3.4): send
    /// the request again without these fields (the validators).
    case resend(without: [HTTPField.Name])
}

/// The cache's work in one pass: one object per pass, shared by the stage
/// inside the per-call chain and the decoding stage after it.
package protocol CachePass: AnyObject, Sendable {
    /// `CallStage.responseCache`: what the store has for the request as the per-call
    /// interceptors left it, whose later components declared `identity`
    /// (undeclared: the pass must neither read nor write).
    func read(_ request: OutgoingRequest, identity: PassIdentity) async -> CacheRead
    /// `CallStage.responseCache`, after the attempt loop: the network's result for what was
    /// sent; a 304 to a revalidation becomes the stored response refreshed,
    /// or — when it names another representation — asks for the request
    /// again, unconditionally.
    func received(_ result: Result<RawResponse, CourierError>, sent: OutgoingRequest) async -> CacheReceipt
    /// `CallStage.decoding` decoded `model` from the network's response (or a
    /// revalidated one): keep the response if the rules allow.
    func decoded(_ model: any Sendable)
    /// A stored response the pass answered with or delivered failed
    /// validation or decoding with `error`: forget it.
    func rejected(_ error: CourierError)
    /// Runs `refresh` — a call of the same endpoint in the
    /// ``CacheRole/backgroundRefresh`` role, which returns its failure —
    /// where the cache keeps track of it and reports a failure.
    func refreshInBackground(_ refresh: @escaping @Sendable () async -> CourierError?)
}

/// Where a response came from, when a cache took part: stamped by the cache
/// stage on what it hands the pipeline.
package enum CacheOrigin: Sendable, Hashable {
    /// Stored, not asked of the network; with `refresh`, the cache asked
    /// for a refresh in the background.
    case storage(refresh: Bool)
    /// Stored, and the server confirmed it is current (304 Not Modified).
    case revalidated
    /// From the network.
    case network
}
