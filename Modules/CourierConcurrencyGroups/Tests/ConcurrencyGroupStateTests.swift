import CourierCore
import Testing

@testable import CourierConcurrencyGroups

/// Every transition of ``ConcurrencyGroupState``, as tables of events and
/// what each one answers, with the invariant checked after every step.
struct ConcurrencyGroupStateTests {
    typealias Ticket = ConcurrencyGroupState.Ticket

    /// One event and what it must answer.
    enum Step {
        case request(Ticket, ConcurrencyPolicy, ConcurrencyGroupState.Admission)
        case finish(Ticket, admits: Ticket?)
        case withdraw(Ticket, wasQueued: Bool)
        case leave(Ticket, admits: Ticket?)
    }

    /// Runs `steps` on a group whose members 1…`members` have joined; after
    /// each step, something is queued only while something runs.
    static func run(
        members: Int, _ steps: [Step], sourceLocation: SourceLocation = #_sourceLocation
    ) -> ConcurrencyGroupState {
        var state = ConcurrencyGroupState()
        for expected in 1...members {
            #expect(state.join() == Ticket(expected), sourceLocation: sourceLocation)
        }
        for (index, step) in steps.enumerated() {
            switch step {
            case .request(let ticket, let policy, let admission):
                #expect(
                    state.request(ticket, policy: policy) == admission, "step \(index)",
                    sourceLocation: sourceLocation)
            case .finish(let ticket, let admits):
                #expect(state.finish(ticket) == admits, "step \(index)", sourceLocation: sourceLocation)
            case .withdraw(let ticket, let wasQueued):
                #expect(state.withdraw(ticket) == wasQueued, "step \(index)", sourceLocation: sourceLocation)
            case .leave(let ticket, let admits):
                #expect(state.leave(ticket) == admits, "step \(index)", sourceLocation: sourceLocation)
            }
            #expect(
                state.queued.isEmpty || state.runningCount > 0, "invariant after step \(index)",
                sourceLocation: sourceLocation)
        }
        return state
    }

    @Test func defaultRunsAtOnceAndCountsAsRunning() {
        let state = Self.run(
            members: 3,
            [
                .request(1, .default, .run),
                .request(2, .default, .run),
                .request(3, .wait(priority: .high), .queued),
            ])
        #expect(state.runningCount == 2)
        #expect(state.phases[1] == .running(attempts: 1))
        #expect(state.queued == [3])
    }

    @Test func defaultOvertakesQueuedWaiters() {
        let state = Self.run(
            members: 3,
            [
                .request(1, .default, .run),
                .request(2, .wait(priority: .default), .queued),
                .request(3, .default, .run),
            ])
        #expect(state.runningCount == 2)
        #expect(state.queued == [2])
    }

    @Test func ignoreCurrentFailsWhileAnythingRunsAndRunsOtherwise() {
        let state = Self.run(
            members: 3,
            [
                .request(1, .ignoreCurrent, .run),
                .request(2, .ignoreCurrent, .ignored),
                .finish(1, admits: nil),
                .request(2, .ignoreCurrent, .run),
                .request(3, .ignoreCurrent, .ignored),
            ])
        #expect(state.phases[3] == .idle)
        #expect(state.runningCount == 1)
    }

    @Test func waitRunsWhenNothingRunsAndQueuesOtherwise() {
        let state = Self.run(
            members: 2,
            [
                .request(1, .wait(priority: .low), .run),
                .request(2, .wait(priority: .high), .queued),
                .finish(1, admits: 2),
            ])
        #expect(state.phases[1] == .idle)
        #expect(state.phases[2] == .running(attempts: 1))
        #expect(state.queued.isEmpty)
    }

    @Test func waitersStartHighestPriorityFirstAndFirstComeFirstServedWithin() {
        var state = Self.run(
            members: 6,
            [
                .request(1, .default, .run),
                .request(2, .wait(priority: .low), .queued),
                .request(3, .wait(priority: .default), .queued),
                .request(4, .wait(priority: .high), .queued),
                .request(5, .wait(priority: 7), .queued),
                .request(6, .wait(priority: .high), .queued),
            ])
        #expect(state.queued == [4, 6, 5, 3, 2])
        // One waiter starts per completion, in that order.
        var order: [Ticket] = []
        var running: Ticket = 1
        while let next = state.finish(running) {
            order.append(next)
            running = next
        }
        #expect(order == [4, 6, 5, 3, 2])
        #expect(state.runningCount == 0)
    }

    /// XZKit v2's `waitWithHighPriority`: the newest such call starts first,
    /// ahead of every other waiter; `waitNewestFirst` at other priorities
    /// stacks within its priority only.
    @Test func theNewestHighPriorityWaiterStartsFirst() {
        let state = Self.run(
            members: 7,
            [
                .request(1, .default, .run),
                .request(2, .waitUntilAllDone, .queued),
                .request(3, .waitWithHighPriority, .queued),
                .request(4, .waitUntilAllDone, .queued),
                .request(5, .waitWithHighPriority, .queued),
                .request(6, .waitNewestFirst(priority: .default), .queued),
                .request(7, .wait(priority: .high), .queued),
            ])
        // 7 (first come, .high) goes behind the high-priority stack it joined
        // last: the stack's newest first only among those that stack.
        #expect(state.queued == [5, 3, 7, 6, 2, 4])
        #expect(ConcurrencyPolicy.waitWithHighPriority == .waitNewestFirst(priority: .high))
        #expect(ConcurrencyPolicy.waitWithHighPriority.description == "waitNewestFirst(priority: high)")
    }

    /// XZKit v2: "auto-retried tasks have lower priority than normal ones" —
    /// a member that ran before queues behind first attempts of its priority,
    /// and still before any lower priority.
    @Test func aRetryQueuesBehindFirstAttemptsOfItsPriority() {
        let state = Self.run(
            members: 4,
            [
                .request(1, .default, .run),
                .request(2, .wait(priority: .default), .queued),
                .finish(1, admits: 2),
                // 2 runs, fails, and asks again (its retry) while 1 runs again.
                .request(1, .default, .run),
                .finish(2, admits: nil),
                .request(2, .wait(priority: .default), .queued),
                .request(3, .wait(priority: .default), .queued),
                .request(4, .wait(priority: .low), .queued),
            ])
        #expect(state.queued == [3, 2, 4])
    }

    @Test func aCompletionStartsNoWaiterWhileSomethingElseRuns() {
        let state = Self.run(
            members: 3,
            [
                .request(1, .default, .run),
                .request(2, .default, .run),
                .request(3, .waitUntilAllDone, .queued),
                .finish(1, admits: nil),
                .finish(2, admits: 3),
            ])
        #expect(state.runningCount == 1)
    }

    @Test func cancelOthersEndsEveryOtherMemberWhateverItsPhase() {
        let state = Self.run(
            members: 5,
            [
                .request(1, .default, .run),
                .request(2, .wait(priority: .default), .queued),
                // 3 and 4 are idle (before their first attempt, or in a retry
                // delay); 5 cancels all four.
                .request(
                    5, .cancelOthers,
                    .runAfterCancelling([
                        .init(ticket: 1, wasQueued: false), .init(ticket: 2, wasQueued: true),
                        .init(ticket: 3, wasQueued: false), .init(ticket: 4, wasQueued: false),
                    ])),
            ])
        #expect(state.runningCount == 1)
        #expect(state.queued.isEmpty)
        for ticket: Ticket in 1...4 { #expect(state.phases[ticket] == .cancelled) }
        #expect(state.phases[5] == .running(attempts: 1))
    }

    @Test func aCancelledMemberIsRefusedAndItsLateFinishChangesNothing() {
        let state = Self.run(
            members: 3,
            [
                .request(1, .default, .run),
                .request(
                    2, .cancelOthers,
                    .runAfterCancelling([
                        .init(ticket: 1, wasQueued: false), .init(ticket: 3, wasQueued: false),
                    ])),
                // The cancelled call's transfer ends afterwards: no double count.
                .finish(1, admits: nil),
                .request(1, .default, .refused),
                .request(3, .wait(priority: .high), .refused),
                .request(2, .cancelOthers, .run),
            ])
        #expect(state.runningCount == 1)
        #expect(state.phases[2] == .running(attempts: 2))
    }

    @Test func cancelOthersAloneJustRuns() {
        let state = Self.run(members: 1, [.request(1, .cancelOthers, .run)])
        #expect(state.runningCount == 1)
    }

    @Test func aWithdrawnWaiterLeavesTheQueueAtOnce() {
        let state = Self.run(
            members: 4,
            [
                .request(1, .default, .run),
                .request(2, .wait(priority: .default), .queued),
                .request(3, .wait(priority: .default), .queued),
                .withdraw(2, wasQueued: true),
                .withdraw(2, wasQueued: false),
                .withdraw(1, wasQueued: false),
                .finish(1, admits: 3),
            ])
        #expect(state.phases[2] == .idle)
        #expect(state.queued.isEmpty)
    }

    @Test func aMemberWithTwoAttemptsRunsUntilBothEnd() {
        // A per-call interceptor running two `next` at once: the second joins the first.
        let state = Self.run(
            members: 2,
            [
                .request(1, .ignoreCurrent, .run),
                .request(1, .ignoreCurrent, .run),
                .request(2, .wait(priority: .default), .queued),
                .finish(1, admits: nil),
                .finish(1, admits: 2),
            ])
        #expect(state.phases[1] == .idle)
        #expect(state.runningCount == 1)
    }

    @Test func twoQueuedAttemptsOfOneMemberStartTogether() {
        var state = Self.run(
            members: 2,
            [
                .request(1, .default, .run),
                .request(2, .wait(priority: .default), .queued),
                .request(2, .wait(priority: .default), .queued),
                .withdraw(2, wasQueued: true),
            ])
        #expect(state.phases[2] == .queued(attempts: 1))
        #expect(state.queued == [2])
        _ = state.request(2, policy: .wait(priority: .default))
        #expect(state.finish(1) == 2)
        #expect(state.phases[2] == .running(attempts: 2))
    }

    @Test func leavingWhileRunningStartsTheNextWaiter() {
        let state = Self.run(
            members: 3,
            [
                .request(1, .default, .run),
                .request(2, .wait(priority: .default), .queued),
                .request(3, .wait(priority: .default), .queued),
                .leave(1, admits: 2),
                .leave(3, admits: nil),
                .leave(2, admits: nil),
            ])
        #expect(state.phases.isEmpty)
        #expect(state.runningCount == 0)
        #expect(state.queued.isEmpty)
    }

    @Test func aMemberThatLeftIsRefused() {
        let state = Self.run(members: 1, [.leave(1, admits: nil), .request(1, .default, .refused)])
        #expect(state.runningCount == 0)
    }
}
