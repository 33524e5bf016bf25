import Testing

@_spi(Locking) @testable import CourierCore

/// ``PendingWaits``: a wait ends once, whether its outcome comes before or
/// after the task suspends.
struct PendingWaitsTests {
    /// The waits behind a lock, as their owners keep them.
    final class Owner: Sendable {
        let waits = Locked(PendingWaits<Int>())
    }

    /// Suspends on wait `id` and returns what it was told; `ended` runs once it is suspended.
    static func suspend(_ owner: Owner, _ id: UInt64, ended: @escaping @Sendable () -> Void) async -> Int {
        await withCheckedContinuation { continuation in
            let ready = owner.waits.withLock { $0.suspend(id, continuation, missing: -1) }
            if let ready { continuation.resume(returning: ready) } else { ended() }
        }
    }

    @Test func anOutcomeBeforeTheSuspensionIsKeptForIt() async {
        let owner = Owner()
        owner.waits.withLock { $0.open(1) }
        let resumed = owner.waits.withLock { $0.end(1, with: 7) }
        #expect(resumed == nil)
        let pending = owner.waits.withLock { $0.isPending(1) }
        #expect(!pending)
        #expect(await Self.suspend(owner, 1, ended: {}) == 7)
        // Closed once taken: a second suspension gets the `missing` outcome.
        #expect(await Self.suspend(owner, 1, ended: {}) == -1)
    }

    @Test func anOutcomeAfterTheSuspensionResumesItOnceAndTheFirstOneWins() async {
        let owner = Owner()
        owner.waits.withLock { $0.open(1) }
        let value = await Self.suspend(owner, 1) {
            // Suspended: end it twice; the first outcome wins, the second finds nothing.
            let first = owner.waits.withLock { $0.end(1, with: 3) }
            let second = owner.waits.withLock { $0.end(1, with: 4) }
            #expect(second == nil)
            first?.resume(returning: 3)
        }
        #expect(value == 3)
        let pending = owner.waits.withLock { $0.isPending(1) }
        #expect(!pending)
    }

    @Test func aClosedWaitIsNoLongerPending() {
        let owner = Owner()
        owner.waits.withLock { $0.open(5) }
        let before = owner.waits.withLock { $0.isPending(5) }
        owner.waits.withLock { $0.close(5) }
        let after = owner.waits.withLock { $0.isPending(5) }
        let ended = owner.waits.withLock { $0.end(5, with: 1) }
        #expect(before && !after && ended == nil)
    }
}
