@_spi(Locking) public import CourierCore
public import HTTPTypes

/// Tells you when calls start and stop using the network — for an activity
/// indicator, a "busy" state, a graceful shutdown — with a live count.
///
/// A call *begins* when its first attempt reaches the plugins (its first
/// `prepare`) and *ends* when its pass ends (`process`): one began and one
/// ended per call, whatever happens in between — retries, cancellation, a
/// veto, a timeout, a fault. A call that never reaches the network (a
/// build failure, a cache hit, a veto by an earlier plugin, a coalesced call
/// that rode another's exchange) neither begins nor ends; a call a response
/// handler runs again begins and ends once per pass.
///
/// ```swift
/// let activity = NetworkActivityPlugin { change, context, active in
///     Task { @MainActor in spinner.isAnimating = active > 0 }
/// }
/// ```
public final class NetworkActivityPlugin: Plugin {
    /// What changed.
    public enum Change: Sendable, Hashable {
        /// A call started using the network.
        case began
        /// It stopped.
        case ended
    }

    private let calls = Locked<Set<UInt64>>([])
    private let onChange: @Sendable (Change, CallContext, Int) -> Void

    /// Creates the plugin.
    /// - Parameter onChange: Called on every change with the call and the
    ///   number of calls active after it, from the call's task; keep it short.
    public init(onChange: @escaping @Sendable (Change, CallContext, Int) -> Void = { _, _, _ in }) {
        self.onChange = onChange
    }

    /// How many calls are using the network now.
    public var activeCalls: Int { calls.withLock { $0.count } }

    /// It only counts: ``/CourierCore/CredentialIdentity/none``, so the calls it counts can still be cached and coalesced.
    public func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }

    /// A call's first attempt: it began.
    public func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
        let active: Int? = calls.withLock { calls in
            calls.insert(context.callID).inserted ? calls.count : nil
        }
        if let active { onChange(.began, context, active) }
        return request
    }

    /// The pass ended: the call did, if it began.
    public func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
        -> Result<RawResponse, CourierError>
    {
        let active: Int? = calls.withLock { calls in
            calls.remove(context.callID) != nil ? calls.count : nil
        }
        if let active { onChange(.ended, context, active) }
        return result
    }
}
