import CourierTesting
import Testing

@_spi(Transport) @testable import CourierCore

/// ``HostAdmission``: places per origin, first come first served, a waiter
/// cancelled or out of time leaves the queue, and a place passes straight to
/// the next waiter. (Over real transports: ContractTests' BusyHostTests.)
struct HostAdmissionTests {
    private actor Arrivals {
        var indices: [Int] = []
        func append(_ index: Int) { indices.append(index) }
    }

    @Test func waitersAreAdmittedInTheOrderTheyCame() async throws {
        let admission = HostAdmission(limit: 1)
        let first = try await admission.admit("http://a", options: .init())
        #expect(first.waited == .zero)
        let order = Arrivals()
        var waiters: [Task<HostAdmission.Slot, any Error>] = []
        for index in 1...3 {
            waiters.append(
                Task {
                    let slot = try await admission.admit("http://a", options: .init())
                    await order.append(index)
                    return slot
                })
            // Each waiter is queued before the next one starts.
            try await waitUntil { admission.load.waiting == index }
        }
        #expect(admission.load == (active: 1, waiting: 3))
        first.release()
        first.release()  // a second release is a no-op
        for waiter in waiters { try await waiter.value.release() }
        #expect(await order.indices == [1, 2, 3])
        #expect(admission.load == (active: 0, waiting: 0))
    }

    @Test func originsDoNotShareTheirPlaces() async throws {
        let admission = HostAdmission(limit: 1)
        let a = try await admission.admit("http://a", options: .init())
        let b = try await admission.admit("https://a", options: .init())
        #expect(admission.load == (active: 2, waiting: 0))
        a.release()
        b.release()
        #expect(admission.load == (active: 0, waiting: 0))
    }

    @Test func aCancelledWaiterLeavesTheQueueAndTheNextOneMovesUp() async throws {
        let admission = HostAdmission(limit: 1)
        let holder = try await admission.admit("http://a", options: .init())
        let cancelled = Task { try await admission.admit("http://a", options: .init()) }
        try await waitUntil { admission.load.waiting == 1 }
        let next = Task { try await admission.admit("http://a", options: .init()) }
        try await waitUntil { admission.load.waiting == 2 }
        cancelled.cancel()
        await #expect(throws: TransportError(.cancelled, "the request was cancelled")) {
            try await cancelled.value
        }
        #expect(admission.load == (active: 1, waiting: 1))
        holder.release()
        try await next.value.release()
        #expect(admission.load == (active: 0, waiting: 0))
    }

    @Test func aCallCancelledFromOutsideLeavesTheQueue() async throws {
        let admission = HostAdmission(limit: 1)
        let holder = try await admission.admit("http://a", options: .init())
        var options = TransportOptions()
        let cancellation = CallCancellation()
        options.cancellation = cancellation
        let waiter = Task { [options] in try await admission.admit("http://a", options: options) }
        try await waitUntil { admission.load.waiting == 1 }
        cancellation.cancel()
        await #expect(throws: TransportError.self) { try await waiter.value }
        #expect(admission.load == (active: 1, waiting: 0))
        holder.release()
    }

    @Test func aWaiterOutOfTimeSaysItNeverGotAConnection() async throws {
        let admission = HostAdmission(limit: 2)
        let holders = [
            try await admission.admit("http://a:8080", options: .init()),
            try await admission.admit("http://a:8080", options: .init()),
        ]
        // The holders are never released while it waits: its timeout always passes first.
        do {
            _ = try await admission.admit("http://a:8080", options: .init(timeout: .milliseconds(20)))
            Issue.record("admitted while every place was held")
        } catch {
            #expect(error.code == .connectionUnavailable)
            #expect(error.message.contains("http://a:8080"), "\(error.message)")
            #expect(error.message.contains("all 2 allowed were in use"), "\(error.message)")
        }
        #expect(admission.load == (active: 2, waiting: 0))
        for holder in holders { holder.release() }
    }
}
