import CourierCore
import CourierResilience
import CourierTestSupport
import CourierTesting
import Testing

/// An attempt made offline waits for the network when the client says so
/// (`waitsForConnectivity`), bounded by the deadline; driven by a
/// `FakeNetworkMonitor` and a manual `TestClock`, no wall clock.
struct ConnectivityWaitTests {
    static func client(
        _ transport: RecordingTransport, _ network: FakeNetworkMonitor, clock: TestClock,
        retryPolicy: RetryPolicy = .never, waits: Bool = true
    ) -> APIClient {
        var configuration = APIClient.Configuration(
            transport: transport, retryPolicy: retryPolicy, timeout: .seconds(20), clock: clock)
        configuration.networkMonitor = network
        configuration.waitsForConnectivity = waits
        return APIClient(configuration: configuration)
    }

    /// Waits until a call listens for the network and its bound's sleep is armed.
    static func waiting(_ network: FakeNetworkMonitor, _ clock: TestClock) async throws {
        await clock.waitForSleepers(1)
        try await waitUntil { network.listeners >= 1 }
    }

    /// A call started offline, waiting for the network.
    static func waitingCall() async throws -> (
        RecordingTransport, FakeNetworkMonitor, TestClock, APIClient, Task<CourierError?, Never>
    ) {
        let transport = RecordingTransport(StubTransport.immediate(.json("{}")))
        let network = FakeNetworkMonitor(.offline("no default route"))
        let clock = TestClock(mode: .manual)
        let client = Self.client(transport, network, clock: clock)
        let call = Task { await expectFailure(client, Endpoint<RawResponse>(.get("feed"), on: .api)) }
        try await Self.waiting(network, clock)
        return (transport, network, clock, client, call)
    }

    @Test func theCallGoesWhenTheNetworkComesBack() async throws {
        let (transport, network, clock, _, call) = try await Self.waitingCall()
        #expect(transport.records.isEmpty)
        clock.advance(by: .seconds(19))
        #expect(transport.records.isEmpty)
        network.status = .online("default route via eth0")
        #expect(await call.value == nil)
        #expect(transport.records.count == 1)
        #expect(network.listeners == 0)
    }

    @Test func theWaitEndsAtTheBoundWithOffline() async throws {
        let (transport, _, clock, _, call) = try await Self.waitingCall()
        clock.advance(by: .seconds(20))
        let error = await call.value
        #expect(error?.code == .offline)
        #expect(
            error?.message == "offline (no default route), and did not come back in time: nothing was sent")
        #expect(transport.records.isEmpty)
    }

    @Test func theRetryDeadlineBoundsTheWait() async throws {
        let transport = RecordingTransport(StubTransport.immediate(.json("{}")))
        let network = FakeNetworkMonitor(.offline("no default route"))
        let clock = TestClock(mode: .manual)
        let client = Self.client(
            transport, network, clock: clock, retryPolicy: RetryPolicy(maxAttempts: 3, deadline: .seconds(5)))
        let call = Task { await expectFailure(client, Endpoint<RawResponse>(.get("feed"), on: .api)) }
        try await Self.waiting(network, clock)
        #expect(clock.sleeps == [.seconds(5)])
        clock.advance(by: .seconds(5))
        #expect(await call.value?.code == .offline)
    }

    @Test func cancellingTheCallEndsTheWait() async throws {
        let (transport, _, _, client, call) = try await Self.waitingCall()
        client.cancelAll()
        #expect(await call.value?.code == .cancelled)
        #expect(transport.records.isEmpty)
    }

    @Test func withoutWaitingAnOfflineAttemptFailsAtOnce() async throws {
        let transport = RecordingTransport(StubTransport.immediate(.json("{}")))
        let network = FakeNetworkMonitor(.offline("no default route"))
        let clock = TestClock(mode: .manual)
        let client = Self.client(transport, network, clock: clock, waits: false)
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("feed"), on: .api))
        #expect(error?.message == "offline (no default route): nothing was sent")
        #expect(clock.sleeps.isEmpty && network.listeners == 0)
    }
}
