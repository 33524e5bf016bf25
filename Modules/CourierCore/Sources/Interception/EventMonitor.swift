public import HTTPTypes

/// Sees every step of every call, in the order it happens: Alamofire's
/// `EventMonitor`, for logging, metrics, tracing and debugging tools.
///
/// One method, one event type: a monitor switches over what it cares about
/// and ignores the rest, and new kinds of events can be added without
/// breaking it. Events are delivered synchronously, on the task where the
/// step happened, to the client's monitors
/// (``APIClient/Configuration/eventMonitors``) and then to the call's
/// plugins (every ``Plugin`` is a monitor, doing nothing by default): keep
/// `callEvent(_:)` quick and never block in it.
///
/// ```swift
/// struct Timeline: EventMonitor {
///     func callEvent(_ event: CallEvent) {
///         switch event.kind {
///         case .attemptFinished(let number, let result):
///             print(event.context.name, number, (try? result.get())?.metrics.timeToFirstByte ?? .zero)
///         case .retryScheduled(let delay, let failure):
///             print(event.context.name, "retry in", delay, "after", failure.code)
///         default: break
///         }
///     }
/// }
/// ```
public protocol EventMonitor: Sendable {
    /// Called once per event.
    func callEvent(_ event: CallEvent)
}

/// Something that happened to a call (``EventMonitor``).
public struct CallEvent: Sendable {
    /// What happened.
    public let kind: Kind
    /// The call it happened to (its attempt number is the attempt's, for
    /// attempt events).
    public let context: CallContext

    /// Creates an event, as the pipeline and the authenticator do.
    package init(_ kind: Kind, context: CallContext) {
        self.kind = kind
        self.context = context
    }

    /// What a response cache did with a call's pass.
    public enum CacheOutcome: Sendable, Hashable {
        /// Answered from storage: no attempt. `refresh`: a background
        /// refresh was started too (stale-while-revalidate).
        case answered(refresh: Bool)
        /// A stored response was delivered first; the network is asked too.
        case deliveredFirst
        /// Nothing usable stored: the network is asked, conditionally
        /// (`revalidating`) when a stored response has validators.
        case network(revalidating: Bool)
        /// The cache made the answer itself (`only-if-cached` with nothing stored: 504).
        case generated
    }

    /// What a concurrency group's policy decided for an attempt.
    public enum PolicyDecision: Sendable {
        /// Ran at once.
        case ran
        /// Ran after cancelling this many calls of the group (`cancelOthers`).
        case ranAfterCancelling(Int)
        /// Waited in the group's queue, then ran.
        case ranAfterWaiting
        /// Refused (`ignoredByPolicy`, `cancelledByPolicy`); the call ends.
        case refused(CourierError)
    }

    /// The kinds of events, in the order a call can meet them.
    public enum Kind: Sendable {
        /// A pass began (a replay by a response handler begins another).
        case passStarted
        /// The response cache looked the pass up.
        case cache(CacheOutcome)
        /// The pass shares an identical call's exchange (`joined`), or is
        /// the one others may join.
        case coalesced(joined: Bool)
        /// The concurrency group's policy let an attempt run, or refused it.
        case policy(PolicyDecision)
        /// An attempt is about to go through the per-attempt interceptors,
        /// plugins and transport.
        case attemptStarted(number: Int, request: HTTPRequest)
        /// One hop of the attempt was redirected: `from` got `status`, `to`
        /// is sent next.
        case redirected(status: Int, from: HTTPRequest, to: HTTPRequest)
        /// The attempt could not reach `from`'s server — no connection, or
        /// its origin's circuit open: nothing was sent — and goes to the
        /// node's next base URL, `to` (CourierResilience's `Failover`).
        case failedOver(from: HTTPRequest, to: HTTPRequest, failure: CourierError)
        /// The attempt ended: the validated response, with the transport's
        /// phase timings (``TransportMetrics``), or the failure.
        case attemptFinished(number: Int, result: Result<RawResponse, CourierError>)
        /// The retry policy will try again after `delay` because of `failure`.
        case retryScheduled(delay: Duration, failure: CourierError)
        /// An `Authenticator` began refreshing its credential for this call.
        case credentialRefreshStarted
        /// The refresh ended.
        case credentialRefreshFinished(succeeded: Bool)
        /// A streamed body ended (read to its end, failed, or was cancelled).
        case streamEnded(StreamSummary)
        /// The pass ended: before decoding, after validation and plugins' `process`.
        case passFinished(Result<RawResponse, CourierError>)
        /// The body did not decode into the model: the call ends with this
        /// ``CourierError/Code/decoding`` error (after a pass that succeeded,
        /// so no other event tells of it).
        case decodingFailed(CourierError)
    }
}

extension CallEvent {
    /// Tells `monitors` of `kind` for the call `context` describes: the one
    /// way the pipeline and the authenticator deliver events.
    package static func deliver(_ kind: Kind, context: CallContext, to monitors: [any EventMonitor]) {
        guard !monitors.isEmpty else { return }
        let event = CallEvent(kind, context: context)
        for monitor in monitors { monitor.callEvent(event) }
    }
}

extension APIClient.Configuration {
    /// The client's event monitors, then its plugins (each a monitor).
    var monitors: [any EventMonitor] { Self.monitors(eventMonitors, then: plugins) }

    /// `eventMonitors`, then `plugins` (each a monitor): the order every
    /// event is told in, for the client's and for a call's own plugins.
    static func monitors(_ eventMonitors: [any EventMonitor], then plugins: [any Plugin])
        -> [any EventMonitor]
    {
        plugins.isEmpty ? eventMonitors : eventMonitors + plugins.map { $0 as any EventMonitor }
    }
}

extension Plugin {
    /// Does nothing: a plugin that wants the call's events implements it.
    public func callEvent(_ event: CallEvent) {}
}
