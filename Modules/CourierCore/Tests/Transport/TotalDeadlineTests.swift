import CourierCore
import CourierTesting
import Testing

/// The total timeout's end, fixed when the call starts: driven by
/// `TestClock`, no wall clock.
struct TotalDeadlineTests {
    @Test func aResponseCompleteAfterTheEndIsLate() {
        let clock = TestClock(mode: .manual)
        let deadline = TotalDeadline(.seconds(10), clock: clock)
        clock.advance(by: .seconds(9))
        #expect(throws: Never.self) { try deadline.check() }
        clock.advance(by: .seconds(1))
        #expect {
            try deadline.check()
        } throws: { error in
            (error as? TransportError)?.code == .timedOut
                && (error as? TransportError)?.message == "no complete response within 10.0 seconds"
        }
    }

    @Test func theWaitForAConnectionCountsAgainstTheTotal() {
        let clock = TestClock(mode: .manual)
        let deadline = TotalDeadline(.seconds(10), waited: .seconds(4), clock: clock)
        clock.advance(by: .seconds(5))
        #expect(throws: Never.self) { try deadline.check() }
        clock.advance(by: .seconds(1))
        #expect(throws: TransportError.self) { try deadline.check() }
    }

    @Test func aTimerThatStartsLateWaitsOnlyWhatIsLeft() async throws {
        let clock = TestClock(mode: .manual)
        let deadline = TotalDeadline(.seconds(10), clock: clock)
        // The pool ran the timer task 7 s late: it waits the 3 s left, not 10.
        clock.advance(by: .seconds(7))
        let timer = Task { () -> Duration? in
            do {
                try await deadline.expiry()
            } catch let error as TransportError where error.code == .timedOut {
                return clock.now
            } catch {}
            return nil
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))
        #expect(await timer.value == .seconds(10))
    }

    @Test func aTimerThatStartsAfterTheEndFiresAtOnce() async {
        let clock = TestClock(mode: .manual)
        let deadline = TotalDeadline(.seconds(1), clock: clock)
        clock.advance(by: .seconds(2))
        await #expect(throws: TransportError.self) { try await deadline.expiry() }
    }

    @Test func anExchangeThatEndsFirstCancelsTheTimer() async {
        let clock = TestClock(mode: .manual)
        let deadline = TotalDeadline(.seconds(10), clock: clock)
        let timer = Task { try await deadline.expiry() }
        await clock.waitForSleepers(1)
        timer.cancel()
        await #expect(throws: CancellationError.self) { try await timer.value }
    }
}
