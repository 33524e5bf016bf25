public import CourierCore

/// What the response cache did for one pass of a call, told to
/// ``ResponseCache``'s `onEvent` and logged at debug level: above all, why
/// it did nothing when a policy asked it to act.
public struct CacheEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Outcome: Sendable, Hashable {
        /// A stored response answered the call (or was delivered first).
        case hit
        /// The policy read the cache and found nothing usable.
        case miss
        /// The network's response was stored.
        case stored
        /// The pass neither read nor stored, or did not store, for this reason.
        case skipped(CacheSkip)
        /// The network failed (this error, or a 500, 502, 503 or 504) and a
        /// stale stored response that allows it answered instead
        /// (`stale-if-error`, RFC 5861 §4).
        case servedStaleOnError(CourierError.Code)
        /// A refresh the cache started in the background failed with this
        /// error; the stored response stays as it was.
        case refreshFailed(CourierError.Code)
    }

    /// What happened.
    public let outcome: Outcome
    /// The call's number (`CallContext.callID`), for correlating with other logs.
    public let callID: UInt64
    /// The endpoint's name, e.g. `GET users/{id}`.
    public let endpoint: String

    /// Creates an event (the cache makes these; tests may too).
    public init(_ outcome: Outcome, callID: UInt64, endpoint: String) {
        self.outcome = outcome
        self.callID = callID
        self.endpoint = endpoint
    }

    /// `cache: <endpoint> (call N): <what happened>`.
    public var description: String {
        let what: String
        switch outcome {
        case .hit: what = "answered from the cache"
        case .miss: what = "nothing stored to answer with"
        case .stored: what = "the response was stored"
        case .skipped(let reason): what = "\(reason)"
        case .servedStaleOnError(let code):
            what = "the network failed (\(code)); answered with a stale response (stale-if-error)"
        case .refreshFailed(let code): what = "the background refresh failed (\(code))"
        }
        return "cache: \(endpoint) (call \(callID)): \(what)"
    }
}

/// Why the response cache let a call pass without reading or storing: each
/// case says what to change, when something can be.
public enum CacheSkip: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request carries a credential (this field) and the policy did not
    /// opt in with ``CachePolicy/storesCredentialedResponses``.
    case credentialed(field: String)
    /// A per-attempt interceptor or plugin may add a credential and does not
    /// declare whose (`CredentialIdentity.undeclared`).
    case undeclaredCredential(by: String)
    /// The request's body cannot be read twice (a stream, a file): it has no key.
    case unkeyableBody
    /// HTTP's rules store responses to GET and HEAD only.
    case method(String)
    /// `Cache-Control: no-store` on the request or the response.
    case noStore
    /// `Vary: *`: no later request can be known to match.
    case varyAll
    /// `Cache-Control: private` in a cache shared by many users.
    case privateInSharedCache
    /// A response to a credentialed request, in a shared cache, without
    /// `public`, `s-maxage` or `must-revalidate` (RFC 9111 §3.5).
    case credentialedInSharedCache
    /// No explicit freshness and a status HTTP does not cache by default.
    case notCacheable(status: Int)
    /// The body was not kept in memory (streamed, or written to a file).
    case bodyNotInMemory
    /// A 206: an incomplete response, which this cache does not keep.
    case partialContent
    /// A status this cache must not store: a 304 to the caller's own
    /// conditional request, or a status it does not know under
    /// `must-understand`.
    case unstorableStatus(Int)
    /// The endpoint's `shouldStore` predicate refused the decoded model.
    case refusedByPredicate

    /// The reason, and what to change.
    public var description: String {
        switch self {
        case .credentialed(let field):
            return
                "not read or stored: the request carries a credential (\(field)); set "
                + "storesCredentialedResponses = true in the endpoint's cache policy to cache it per user"
        case .undeclaredCredential(let name):
            return
                "not read or stored: \(name) may add a credential after the cache and does not say whose; "
                + "declare it with credentialIdentity(for:)"
        case .unkeyableBody:
            return "not read or stored: the request body is a stream or a file, which has no key"
        case .method(let method):
            return "not read or stored: HTTP caches responses to GET and HEAD, not \(method)"
        case .noStore:
            return "not stored: Cache-Control: no-store"
        case .varyAll:
            return "not stored: Vary: *"
        case .privateInSharedCache:
            return "not stored: Cache-Control: private, and this cache is shared"
        case .credentialedInSharedCache:
            return
                "not stored: a credentialed response in a shared cache needs public, s-maxage or must-revalidate"
        case .notCacheable(let status):
            return "not stored: status \(status) without explicit freshness (max-age, Expires)"
        case .bodyNotInMemory:
            return "not stored: the body was not kept in memory"
        case .partialContent:
            return "not stored: a 206 is part of a response, and only whole responses are kept"
        case .unstorableStatus(let status):
            return
                "not stored: status \(status) is not a response this cache keeps (a 304, or unknown with must-understand)"
        case .refusedByPredicate:
            return "not stored: the endpoint's shouldStore refused the model"
        }
    }
}
