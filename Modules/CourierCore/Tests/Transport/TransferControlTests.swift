@_spi(Locking) @_spi(Transport) import CourierCore
import CourierTestSupport
import CourierTesting
import CourierTransfers
import Testing

/// Pausing a transfer from outside: the idle watch stands still while it
/// lasts (driven by `TestClock`, no wall clock), the control reaches every
/// exchange a transport attaches, and a call through a transport that cannot
/// pause says so with a typed error. The transports' own pausing runs against
/// a real server in the end-to-end package (`PauseTests`).
struct TransferControlTests {
    /// Wraps ``HeldTransport`` and pauses as a real transport would: it
    /// attaches each exchange and records what the control told it.
    final class PausingProbe: PausableTransport {
        let held = HeldTransport()
        let applied = Locked<[Bool]>([])
        let sawControl = Locked(false)
        var pausesTransfers: Bool { true }

        func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
            sawControl.withLock { $0 = options.transferControl != nil }
            let registration = options.transferControl?.attach { paused in
                self.applied.withLock { $0.append(paused) }
            }
            defer { registration?.remove() }
            return try await held.send(request, options: options)
        }
    }

    static let endpoint = Endpoint<RawResponse>(.get("report"), on: .api)

    @Test func aPausedWatchNeverExpiresAndCountsAgainFromTheResume() async throws {
        let clock = TestClock(mode: .manual)
        let watchdog = IdleWatchdog(limit: .seconds(10), clock: clock)
        let expiry = IdleTimeoutTests.Expiry(watchdog, clock: clock)
        await clock.waitForSleepers(1)
        watchdog.suspend()
        // Twenty limits of quiet while paused: the watch wakes, sees the
        // pause and sleeps again each time.
        for _ in 0..<2 {
            clock.advance(by: .seconds(100))
            await clock.waitForSleepers(1)
            #expect(expiry.ended == nil)
        }
        watchdog.resume()  // at 200 s
        clock.advance(by: .seconds(9))
        await clock.waitForSleepers(1)
        #expect(expiry.ended == nil)
        clock.advance(by: .seconds(1))
        await expiry.task.value
        #expect(expiry.ended?.at == .seconds(210), "the limit counts from the resume")
        #expect((expiry.ended?.error as? TransportError)?.code == .timedOut)
    }

    @Test func anExchangeAttachedWhilePausedStartsPausedAndHearsTheResume() {
        let control = TransferControl(for: PausingProbe())
        #expect(control.pause())
        let applied = Locked<[Bool]>([])
        let registration = control.attach { paused in applied.withLock { $0.append(paused) } }
        #expect(applied.withLock { $0 } == [true])
        #expect(control.pause())  // already paused: nothing new
        control.resume()
        control.resume()  // already running: nothing new
        #expect(applied.withLock { $0 } == [true, false])
        registration.remove()
        #expect(control.pause())
        #expect(applied.withLock { $0 } == [true, false], "a detached exchange hears nothing")
        #expect(control.isPaused)
    }

    @Test func aWaitWhilePausedEndsWithTheResumeOrTheTask() async {
        let control = TransferControl(for: PausingProbe())
        await control.waitWhilePaused()  // running: returns at once
        #expect(control.pause())
        let waiting = Task { await control.waitWhilePaused() }
        let cancelled = Task { await control.waitWhilePaused() }
        cancelled.cancel()
        await cancelled.value
        #expect(control.isPaused)
        control.resume()
        await waiting.value
    }

    @Test func aTransferReachesItsTransportAndPausesIt() async throws {
        let probe = PausingProbe()
        let client = APIClient(transport: probe)
        let transfer = client.transfer(Self.endpoint)
        await probe.held.waitForArrivals(1)
        #expect(probe.sawControl.withLock { $0 })
        try transfer.pause()
        #expect(transfer.isPaused)
        transfer.resume()
        #expect(!transfer.isPaused)
        #expect(probe.applied.withLock { $0 } == [true, false])
        probe.held.answer("/v1/report", with: .status(200))
        _ = try await transfer.value
    }

    @Test func aPreparedCallPausesAndItsResumeLetsItGoOn() async throws {
        let probe = PausingProbe()
        let client = APIClient(transport: probe)
        let call = client.prepare(Self.endpoint) { _ in }
        call.resume()
        await probe.held.waitForArrivals(1)
        try call.pause()
        #expect(call.isPaused)
        call.resume()
        #expect(probe.applied.withLock { $0 } == [true, false])
        probe.held.answer("/v1/report", with: .status(200))
        await call.wait()
        withExtendedLifetime(client) {}
    }

    @Test func aTransportThatCannotPauseSaysSoAndTheCallRunsOn() async throws {
        let held = HeldTransport()
        let client = APIClient(transport: held)
        let transfer = client.transfer(Self.endpoint)
        await held.waitForArrivals(1)
        do throws(CourierError) {
            try transfer.pause()
            Issue.record("a transport that cannot pause was paused")
        } catch {
            #expect(error.code == .pauseUnsupported)
            #expect(error.message.contains("HeldTransport cannot pause"), "\(error.message)")
        }
        #expect(!transfer.isPaused)
        held.answer("/v1/report", with: .status(200))
        _ = try await transfer.value
    }
}
