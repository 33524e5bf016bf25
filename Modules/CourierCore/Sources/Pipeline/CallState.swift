/// Everything one call knows, as one value that the pipeline's stages take
/// and return (``CallPipeline`` lists them in order).
///
/// It is small on purpose — copying it is a handful of reference counts:
/// what does not change during a pass lives in the immutable ``plan``; the
/// attempt count and deadline start live in ``budget``, the one shared
/// piece (its documentation says why); the envelope head read during
/// validation travels with the response it belongs to (``RawResponse``'s
/// validation stamp), never beside it.
package struct CallState: Sendable {
    /// Unique within the process; stamps the responses this call validated.
    let id: UInt64
    /// The call's attempt count and deadline start, shared by every run of
    /// the attempt loop and every pass.
    let budget: CallBudget
    /// The endpoint and settings this pass works from.
    var plan: PassPlan
    /// The encoded request, once `.encoding` built it.
    var request: OutgoingRequest?
    /// Cancellation from outside the caller's task (``APIClient/cancelAll()``,
    /// a concurrency policy).
    package let cancellation: CallCancellation
    /// What the call-scoped features keep for the call (``PassStep``).
    package var scope = CallScope()
    /// What the per-attempt interceptors and plugins declare they add,
    /// asked once per pass when a step keys on it (`.identity`); `nil`
    /// otherwise (``PassIdentity``).
    var identity: PassIdentity?

    /// The context interceptors and plugins see.
    package var context: CallContext { plan.context }
    /// The endpoint this pass sends.
    package var spec: EndpointSpec { plan.spec }
    /// Whether the call is a stream: its attempt's end is its body's.
    package var isStream: Bool { plan.call.stream != nil }
    /// The settings in force.
    var settings: CallSettings { plan.settings }

    /// The clock the call's waits and deadlines use.
    package var clock: any CourierClock { settings.clock }
    /// The header fields that carry a credential in this call
    /// (``CredentialFields``, with what its plugins redact).
    package var credentialFields: CredentialFields { settings.credentials }
    /// The retry policy's shared allowance (a `RetryBudget`), if it has one.
    package var retryAllowance: (any RetryAllowance)? { settings.retryPolicy.allowance }

    /// How long an attempt may wait before it sends: what is left of the
    /// retry policy's deadline, else the attempt's total, else its idle
    /// timeout, else a minute.
    package var attemptWaitBound: Duration {
        let settings = self.settings
        let left = settings.retryPolicy.deadline.map { $0 - budget.elapsed(now: settings.clock.now) }
        return max(.zero, left ?? settings.timeout ?? settings.idleTimeout ?? .seconds(60))
    }

    /// Attempts begun so far in the call.
    package var attemptsBegun: Int { budget.attempts }

    /// Tells the monitors of `kind`, for attempt `attempt` when it is about one.
    /// The event is built only when a monitor listens: most calls have none,
    /// and building one copies what it carries (a request head, a result).
    package func emit(_ kind: @autoclosure () -> CallEvent.Kind, attempt: Int? = nil) {
        let monitors = settings.monitors
        guard !monitors.isEmpty else { return }
        var context = self.context
        if let attempt { context.attempt = attempt }
        CallEvent.deliver(kind(), context: context, to: monitors)
    }

    init(id: UInt64, plan: PassPlan, cancellation: CallCancellation) {
        self.init(id: id, budget: CallBudget(), plan: plan, cancellation: cancellation)
    }

    private init(id: UInt64, budget: CallBudget, plan: PassPlan, cancellation: CallCancellation) {
        self.id = id
        self.budget = budget
        self.plan = plan
        self.cancellation = cancellation
    }

    /// This call's state with another cancellation: for an exchange that
    /// coalesced calls share, which only its last caller may cancel.
    func sharing(_ cancellation: CallCancellation) -> CallState {
        var copy = CallState(id: id, budget: budget, plan: plan, cancellation: cancellation)
        copy.request = request
        copy.scope = scope
        copy.identity = identity
        return copy
    }
}
