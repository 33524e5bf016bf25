/// The stages of a call, in the order ``CallPipeline`` runs them: the one
/// list of them. The pipeline's comments name these cases; the "What a call
/// goes through" article, its diagram and the README number and title the
/// stages exactly so (`CallStageTests` holds them to it); each
/// ``CourierError/Stage`` names the ones it reports.
enum CallStage: Int, CaseIterable, Sendable {
    /// The client's endpoint mapping; then the settings resolved once.
    case endpointMapping = 1
    /// Parameter interceptors, the client's then the endpoint's.
    case parameterInterceptors
    /// The request head and body.
    case encoding
    /// What the per-attempt interceptors and plugins declare they add
    /// (``PassIdentity``), when the cache or coalescing takes part: both key
    /// on it, so it is asked before either decides.
    case identity
    /// Per-call interceptors, around the stages up to the attempt loop.
    case callInterceptors
    /// The response cache, innermost in the per-call chain, when it takes part.
    case responseCache
    /// The attempts: each admitted by the call's group, through the
    /// reachability gate, per-attempt interceptors, plugins, the hops and
    /// validation, to the retry decision. Shared by coalesced calls.
    case attemptLoop
    /// Validation of what the per-call chain returned.
    case validation
    /// Plugins' `process`, once per pass.
    case process
    /// The model, from a validated response only.
    case decoding
    /// When the cache took part: a stored answer that failed is dropped and
    /// the network asked; a model from the network is offered to the cache.
    case cacheFollowUp
    /// Response handlers, which may run the call again from the first stage.
    case responseHandlers
    /// The reply, or one error with its context completed.
    case finish

    /// The stage's title, as the documents write it after its number.
    var title: String {
        switch self {
        case .endpointMapping: "Endpoint mapping"
        case .parameterInterceptors: "Parameter interceptors"
        case .encoding: "Encoding"
        case .identity: "Whose response it is"
        case .callInterceptors: "Per-call interceptors"
        case .responseCache: "The response cache"
        case .attemptLoop: "The attempt loop"
        case .validation: "Validation"
        case .process: "Plugins' process"
        case .decoding: "Decoding"
        case .cacheFollowUp: "The cache's follow-up"
        case .responseHandlers: "Response handlers"
        case .finish: "Finish"
        }
    }
}
