/// What the call-scoped features keep for one call, beside its state: each
/// field is one feature's, written by its ``PassStep`` and read by its
/// attempt or call-tier steps; a satellite's keeps its own under a type of
/// its own (``subscript(held:)``). The pipeline carries it and reads only
/// the generic answers (``wantsIdentity``, ``followsUp``, ``joined``).
package struct CallScope: Sendable {
    /// What satellites' steps keep for the call, by the kept value's type.
    private var held: [ObjectIdentifier: any Sendable] = [:]
    /// The response cache's part in this pass, when it takes one (`.responseCache`).
    var cacheStage: (any CachePass)?
    /// Set after a stored answer failed validation or decoding: the passes
    /// that follow ask the network only.
    var skipsCacheReading = false
    /// Whether the pass needs to know whose its response is (`.identity`):
    /// set by a step that keys on it (the cache's, coalescing's).
    var wantsIdentity = false
    /// For a caller that takes every delivery: validates, decodes and hands
    /// over a response delivered before the call's own result (a stored one
    /// the cache delivers first); the failure that made it unusable, if one
    /// did. Set by ``CallPipeline/run(_:_:stored:)``.
    var deliverEarly: (@Sendable (RawResponse, CallState) async -> CourierError?)?
    /// The steps holding something until the call ends (``PassStep/end(_:)``).
    package var joined: [any PassStep] = []

    /// The value of type `type` a satellite's step keeps for this call (a
    /// concurrency group's membership), if one does.
    package subscript<Value: Sendable>(held type: Value.Type) -> Value? {
        get { held.isEmpty ? nil : held[ObjectIdentifier(type)] as? Value }
        set { held[ObjectIdentifier(type)] = newValue }
    }

    /// Whether a step asked to follow the pass up after `.decoding`.
    var followsUp: Bool { cacheStage != nil }
}
