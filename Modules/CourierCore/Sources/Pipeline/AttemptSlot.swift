/// Where a step stands in an attempt, outermost first: the one list of an
/// attempt's parts, as ``CallStage`` is of a call's. A step of each feature
/// a call's settings configure sits in its slot; the budget, validation,
/// the head check and the exchange are every attempt's.
package enum AttemptSlot: Int, CaseIterable, Sendable {
    /// Waits for the network to come back before anything else.
    case connectivityWait
    /// The call's concurrency group admits the attempt (it may queue).
    case groupAdmission
    /// The call's budget numbers the attempt and gives it its share of the
    /// deadline; the monitors hear it start and end.
    case budget
    /// A node with more than one base URL moves an attempt that reached no
    /// server to the next (CourierResilience's `Failover`).
    case failover
    /// The client's rate limiter reserves the attempt's place under its key
    /// (it may wait), and learns the rate the response announces.
    case rateLimit
    /// The origin's circuit is asked, and told how the attempt ended.
    case circuitBreaker
    /// An offline network refuses the attempt before anything is sent.
    case offlineGate
    /// A download's staging file: written by the transport, moved into
    /// place only once the response is valid.
    case downloadStaging
    /// The response's status, content type and envelope.
    case validation
    /// The per-attempt interceptors.
    case attemptInterceptors
    /// A resumable download asks for the rest of what it kept.
    case downloadResume
    /// A resumable upload continues from the server's offset when its
    /// exchange is cut (CourierTransfers' `ResumableUpload`).
    case resumableUpload
    /// Plugins' `prepare`.
    case pluginPreparation
    /// The head as it leaves the last component, checked once.
    case headCheck
    /// A shared pass's credential fields are the ones it was keyed with.
    case identityCheck
    /// Plugins' `willSend` and `didReceive`.
    case pluginObservation
    /// The exchange: the hops of a call, or a stream's.
    case exchange
}
