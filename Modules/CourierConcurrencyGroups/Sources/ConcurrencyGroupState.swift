@_spi(Locking) import CourierCore

/// The rules of a ``ConcurrencyGroup`` as a plain value: events in, decisions
/// out, no locks, no tasks, no clock — so every transition is tested as a
/// table (`ConcurrencyGroupStateTests`). ``ConcurrencyGroup`` holds one behind
/// its lock and carries out the decisions (resuming waiters, cancelling calls).
///
/// A *member* is a call of the group, from its start to its end; each of its
/// attempts asks ``request(_:policy:)`` before going to the network and
/// reports ``finish(_:)`` after. The member is the unit the policies see:
/// a per-call interceptor that runs two `next` at once has two attempts of
/// one running member (the second joins the first, whatever the policy), or
/// two attempts of one queued member (both start when it is admitted).
/// Invariant, checked by the tests after every event: something is queued
/// only while something runs.
struct ConcurrencyGroupState: Sendable, Equatable {
    /// A member's number, unique within the group.
    typealias Ticket = UInt64

    /// Where a member is.
    enum Phase: Sendable, Equatable {
        /// Between attempts: before the first, in a retry delay, in an interceptor.
        case idle
        /// Queued by `wait(priority:)`, with this many attempts waiting.
        case queued(attempts: Int)
        /// This many attempts are on the network.
        case running(attempts: Int)
        /// Ended by another member's `cancelOthers`; it may not run again.
        case cancelled
    }

    /// What an attempt that asked to run may do.
    enum Admission: Sendable, Equatable {
        /// Run now (it counts as running from this moment).
        case run
        /// Run now; these members were ended first (`cancelOthers`), each
        /// with whether it was queued (and must be woken) or not (its call must be cancelled).
        case runAfterCancelling([Cancelled])
        /// Wait: ``finish(_:)`` or ``leave(_:)`` of another member will
        /// admit it, or it withdraws.
        case queued
        /// Fail with `ignoredByPolicy`.
        case ignored
        /// Fail with `cancelledByPolicy`: the member was already ended.
        case refused
    }

    /// A member that `cancelOthers` ended.
    struct Cancelled: Sendable, Equatable {
        let ticket: Ticket
        /// It was queued: its waiting attempt must be woken with the error.
        let wasQueued: Bool
    }

    private struct QueuedAttempt: Sendable, Equatable {
        let ticket: Ticket
        let priority: ConcurrencyPriority
        /// The member ran before: a retry (or a later `next`), which XZKit v2
        /// queues behind first attempts of its priority.
        let isRetry: Bool
        let newestFirst: Bool

        /// Whether `other`, arriving now, starts before this one.
        func yields(to other: QueuedAttempt) -> Bool {
            if priority != other.priority { return priority < other.priority }
            if isRetry != other.isRetry { return isRetry }
            return other.newestFirst
        }
    }

    private(set) var phases: [Ticket: Phase] = [:]
    /// Members that have had an attempt on the network.
    private var ran: Set<Ticket> = []
    private var queue: [QueuedAttempt] = []
    /// Members with an attempt on the network.
    private(set) var runningCount = 0
    private var nextTicket: Ticket = 1

    /// The members queued, in the order they will start.
    var queued: [Ticket] { queue.map(\.ticket) }

    /// A call joins the group.
    mutating func join() -> Ticket {
        let ticket = nextTicket
        nextTicket += 1
        phases[ticket] = .idle
        return ticket
    }

    /// An attempt of `ticket` asks to run under `policy`.
    mutating func request(_ ticket: Ticket, policy: ConcurrencyPolicy) -> Admission {
        guard let phase = phases[ticket] else { return .refused }
        switch phase {
        case .cancelled: return .refused
        case .running(let attempts):
            phases[ticket] = .running(attempts: attempts + 1)
            return .run
        case .queued(let attempts):
            phases[ticket] = .queued(attempts: attempts + 1)
            return .queued
        case .idle: break
        }
        switch policy.kind {
        case .default:
            start(ticket)
            return .run
        case .ignoreCurrent:
            if runningCount > 0 { return .ignored }
            start(ticket)
            return .run
        case .wait(let priority, let newestFirst):
            if runningCount == 0 {
                start(ticket)
                return .run
            }
            return enqueue(
                QueuedAttempt(
                    ticket: ticket, priority: priority, isRetry: ran.contains(ticket),
                    newestFirst: newestFirst))
        case .cancelOthers:
            var cancelled: [Cancelled] = []
            for (other, phase) in phases where other != ticket && phase != .cancelled {
                if case .queued = phase {
                    cancelled.append(Cancelled(ticket: other, wasQueued: true))
                } else {
                    cancelled.append(Cancelled(ticket: other, wasQueued: false))
                }
                phases[other] = .cancelled
            }
            cancelled.sort { $0.ticket < $1.ticket }
            queue.removeAll()
            runningCount = 0
            start(ticket)
            return cancelled.isEmpty ? .run : .runAfterCancelling(cancelled)
        }
    }

    /// A running attempt of `ticket` ended (however it ended).
    /// - Returns: The queued member that starts now, if one does; it counts
    ///   as running already.
    mutating func finish(_ ticket: Ticket) -> Ticket? {
        guard case .running(let attempts) = phases[ticket] else { return nil }
        guard attempts == 1 else {
            phases[ticket] = .running(attempts: attempts - 1)
            return nil
        }
        phases[ticket] = .idle
        runningCount -= 1
        return admitNext()
    }

    /// A queued attempt gives up (its task or call was cancelled).
    /// - Returns: Whether it was queued (`false`: it was already admitted
    ///   or ended, and the caller must not treat it as withdrawn).
    mutating func withdraw(_ ticket: Ticket) -> Bool {
        guard case .queued(let attempts) = phases[ticket] else { return false }
        if attempts > 1 {
            phases[ticket] = .queued(attempts: attempts - 1)
        } else {
            queue.removeAll { $0.ticket == ticket }
            phases[ticket] = .idle
        }
        return true
    }

    /// The call ended and leaves the group: it stops running or waiting.
    /// - Returns: The queued member that starts now, if one does.
    mutating func leave(_ ticket: Ticket) -> Ticket? {
        var next: Ticket?
        switch phases[ticket] {
        case .running:
            phases[ticket] = .running(attempts: 1)
            next = finish(ticket)
        case .queued:
            queue.removeAll { $0.ticket == ticket }
        default: break
        }
        phases[ticket] = nil
        ran.remove(ticket)
        return next
    }

    private mutating func start(_ ticket: Ticket, attempts: Int = 1) {
        phases[ticket] = .running(attempts: attempts)
        runningCount += 1
        ran.insert(ticket)
    }

    /// Queues before the first attempt that yields to it: highest priority
    /// first; within a priority first attempts before retries, and first
    /// come first served — or newest first for `waitNewestFirst`.
    private mutating func enqueue(_ attempt: QueuedAttempt) -> Admission {
        let index = queue.firstIndex { $0.yields(to: attempt) } ?? queue.endIndex
        queue.insert(attempt, at: index)
        phases[attempt.ticket] = .queued(attempts: 1)
        return .queued
    }

    /// One queued attempt starts when nothing runs.
    private mutating func admitNext() -> Ticket? {
        guard runningCount == 0, !queue.isEmpty else { return nil }
        let next = queue.removeFirst()
        guard case .queued(let attempts) = phases[next.ticket] else { return nil }
        start(next.ticket, attempts: attempts)
        return next.ticket
    }
}
