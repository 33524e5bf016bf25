@_spi(Locking) import CourierCore

/// A domain in which ``ConcurrencyPolicy`` applies: the
/// calls of every ``/CourierCore/APIClient`` that names the same group see each other.
///
/// Give a client a group (`APIClient.Configuration.concurrencyGroup`) and
/// every call it makes joins it, with its endpoint's policy (``ConcurrencyPolicy/default``
/// unless the endpoint says otherwise); or name a group on an endpoint
/// (`Endpoint.concurrency(_:in:)`). A shopping cart's add, update and
/// delete calls, made by different clients, queue behind each other:
///
/// ```swift
/// let cart = ConcurrencyGroup("cart")
/// var config = APIClient.Configuration(transport: CurlTransport.shared)
/// config.concurrencyGroup = cart
/// // Every cart call waits for the one before it:
/// let update = Endpoint<Cart>(.put("cart/items/7"), on: .api).concurrency(.waitUntilAllDone)
/// ```
///
/// The rules live in `ConcurrencyGroupState` (an internal value, tested as a table);
/// this class holds it behind one lock and carries out its decisions:
/// wakes queued attempts, and ends calls that `cancelOthers` cancelled through
/// their ``/CourierCore/CallCancellation`` (their transfer stops). When nothing waits, an
/// attempt takes the lock twice — once to start, once to finish — and
/// allocates nothing.
public final class ConcurrencyGroup: Sendable, CustomStringConvertible {
    /// The name, for errors and logs.
    public let name: String

    private struct Inner: ~Copyable {
        var rules = ConcurrencyGroupState()
        /// Each member's cancellation, to end it for `cancelOthers` and
        /// `cancelAll`, and its endpoint's tags.
        var calls: [ConcurrencyGroupState.Ticket: (call: CallCancellation, tags: Set<String>)] = [:]
        /// Queued attempts, by member: each waits for the member's admission.
        var queued: [ConcurrencyGroupState.Ticket: [UInt64]] = [:]
        /// The waits of queued attempts: `nil` (go) or why not.
        var waits = PendingWaits<CourierError?>()
        var nextWait: UInt64 = 0
    }

    private let inner = Locked(Inner())

    /// Creates a group; calls join it through a client or an endpoint.
    /// - Parameter name: A name for errors and logs.
    public init(_ name: String = "group") {
        self.name = name
    }

    /// `ConcurrencyGroup("name")`.
    public var description: String { "ConcurrencyGroup(\"\(name)\")" }

    /// Calls with an attempt on the network now.
    public var runningCalls: Int { inner.withLock { $0.rules.runningCount } }

    /// Calls queued by ``ConcurrencyPolicy/wait(priority:)`` now.
    public var queuedCalls: Int { inner.withLock { $0.rules.queued.count } }

    // MARK: - The pipeline's side

    /// Ends every call of the group — running, queued, or between attempts
    /// (in a retry wait) — with ``/CourierCore/CourierError/Code/cancelled``, whichever
    /// client made it. Each
    /// call fails once, its transfer stops, no retry follows; calls that
    /// join afterwards are not affected.
    public func cancelAll() {
        let calls = inner.withLock { $0.calls.values.map(\.call) }
        let reason = CourierError(
            .cancelled, stage: .concurrency, message: "cancelled by \(self).cancelAll()")
        for call in calls { call.cancel(because: reason) }
    }

    /// Ends the calls of the group whose endpoint carries `tag`
    /// (``/CourierCore/Endpoint/tagged(_:)``), as ``cancelAll()`` ends them all.
    /// - Parameter tag: The tag the calls to end carry.
    public func cancelAll(tagged tag: String) {
        let calls = inner.withLock { $0.calls.values.filter { $0.tags.contains(tag) }.map(\.call) }
        let reason = CourierError(
            .cancelled, stage: .concurrency, message: "cancelled by \(self).cancelAll(tagged: \"\(tag)\")")
        for call in calls { call.cancel(because: reason) }
    }

    /// A call joins; `cancellation` ends it when another call's
    /// `cancelOthers` or ``cancelAll()`` does, or ``cancelAll(tagged:)`` with one of its `tags`.
    func join(_ cancellation: CallCancellation, tags: Set<String>) -> ConcurrencyGroupState.Ticket {
        inner.withLock { inner in
            let ticket = inner.rules.join()
            inner.calls[ticket] = (cancellation, tags)
            return ticket
        }
    }

    /// An attempt asks to run; returns when it may, or throws why it may not.
    /// - Throws: ``/CourierCore/CourierError/Code/ignoredByPolicy``,
    ///   ``/CourierCore/CourierError/Code/cancelledByPolicy``, or
    ///   ``/CourierCore/CourierError/Code/cancelled`` when the task or the call is cancelled while queued.
    /// - Returns: What the policy decided, for the call's monitors.
    @discardableResult
    func admit(
        _ ticket: ConcurrencyGroupState.Ticket, policy: ConcurrencyPolicy, cancellation: CallCancellation
    ) async throws(CourierError) -> CallEvent.PolicyDecision {
        let reason = cancelledError(by: policy)
        let (admission, wait, calls, woken) = inner.withLock { inner in
            let admission = inner.rules.request(ticket, policy: policy)
            var wait: UInt64?
            var calls: [CallCancellation] = []
            var woken: [CheckedContinuation<CourierError?, Never>] = []
            switch admission {
            case .queued:
                inner.nextWait += 1
                wait = inner.nextWait
                inner.waits.open(inner.nextWait)
                inner.queued[ticket, default: []].append(inner.nextWait)
            case .runAfterCancelling(let cancelled):
                for member in cancelled {
                    if member.wasQueued {
                        woken += Self.end(member.ticket, reason, &inner)
                    } else if let member = inner.calls[member.ticket] {
                        calls.append(member.call)
                    }
                }
            case .run, .ignored, .refused: break
            }
            return (admission, wait, calls, woken)
        }
        switch admission {
        case .run:
            return .ran
        case .runAfterCancelling:
            for continuation in woken { continuation.resume(returning: reason) }
            for call in calls { call.cancel(because: reason) }
            return .ranAfterCancelling(woken.count + calls.count)
        case .ignored:
            throw CourierError(
                .ignoredByPolicy, stage: .concurrency,
                message: "ignored: another call of \(self) is running (policy ignoreCurrent)")
        case .refused:
            throw cancelledError(by: nil)
        case .queued:
            guard let wait else { return .ran }
            if let failure = await self.wait(ticket, wait, cancellation) { throw failure }
            return .ranAfterWaiting
        }
    }

    /// The attempt that `admit` let run ended.
    func finish(_ ticket: ConcurrencyGroupState.Ticket) {
        let woken = inner.withLock { inner in
            inner.rules.finish(ticket).map { Self.end($0, nil, &inner) } ?? []
        }
        for continuation in woken { continuation.resume(returning: nil) }
    }

    /// The call ended.
    func leave(_ ticket: ConcurrencyGroupState.Ticket) {
        let woken = inner.withLock { inner in
            inner.calls[ticket] = nil
            for wait in inner.queued.removeValue(forKey: ticket) ?? [] { inner.waits.close(wait) }
            return inner.rules.leave(ticket).map { Self.end($0, nil, &inner) } ?? []
        }
        for continuation in woken { continuation.resume(returning: nil) }
    }

    // MARK: - Waiting

    /// Suspends until the member is admitted, cancelled by policy, or the
    /// task or call is cancelled (then the attempt leaves the queue at once).
    /// - Returns: `nil` to run, or why not.
    private func wait(
        _ ticket: ConcurrencyGroupState.Ticket, _ wait: UInt64, _ cancellation: CallCancellation
    ) async -> CourierError? {
        let withdraw: @Sendable () -> Void = { [self] in self.withdraw(ticket, wait, cancellation.reason) }
        let registration = cancellation.onCancel(withdraw)
        defer { registration.remove() }
        let missing = cancelledError(by: nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CourierError?, Never>) in
                let ready = inner.withLock { $0.waits.suspend(wait, continuation, missing: missing) }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            withdraw()
        }
    }

    /// A queued attempt gives up: it leaves the queue and its wait ends
    /// cancelled, with the canceller's `reason` when it gave one.
    private func withdraw(_ ticket: ConcurrencyGroupState.Ticket, _ wait: UInt64, _ reason: CourierError?) {
        let failure =
            reason
            ?? CourierError(
                .cancelled, stage: .concurrency, message: "the call was cancelled while queued in \(self)")
        let continuation: CheckedContinuation<CourierError?, Never>? = inner.withLock { inner in
            guard inner.waits.isPending(wait), inner.rules.withdraw(ticket) else { return nil }
            inner.queued[ticket]?.removeAll { $0 == wait }
            return inner.waits.end(wait, with: failure)
        }
        continuation?.resume(returning: failure)
    }

    /// Ends the waits of a member's queued attempts with `outcome` (`nil`:
    /// admitted): those suspended are returned to be resumed outside the
    /// lock; those not yet suspended find the outcome when they try.
    private static func end(
        _ ticket: ConcurrencyGroupState.Ticket, _ outcome: CourierError?, _ inner: inout Inner
    ) -> [CheckedContinuation<CourierError?, Never>] {
        (inner.queued.removeValue(forKey: ticket) ?? []).compactMap { inner.waits.end($0, with: outcome) }
    }

    private func cancelledError(by policy: ConcurrencyPolicy?) -> CourierError {
        CourierError(
            .cancelledByPolicy, stage: .concurrency,
            message: policy == nil
                ? "cancelled: another call of \(self) cancelled this one (policy cancelOthers)"
                : "cancelled by a call of \(self) with policy cancelOthers")
    }
}
