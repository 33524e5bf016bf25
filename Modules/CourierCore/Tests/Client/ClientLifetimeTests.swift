@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// A client's calls end with it, and nothing of it stays behind.
struct ClientLifetimeTests {
    /// A plugin the test holds weakly: it lives as long as the client's settings do.
    final class Probe: Plugin {
        func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }
    }

    /// Released while a completion-handler call is on the network: the call
    /// ends at once with `.cancelled` ("released"), its request is cancelled
    /// at the transport, the completion runs once, and the client's settings
    /// (here, a plugin) are freed.
    @Test func releasingTheClientEndsItsCallsAndFreesIt() async throws {
        let transport = HeldTransport()
        weak var probe: Probe?
        let outcomes = Locked<[Result<RawResponse, CourierError>]>([])
        var handle: CancellableCall?
        do {
            let plugin = Probe()
            probe = plugin
            let client = APIClient(transport: transport, plugins: [plugin])
            handle = client.send(Endpoint<RawResponse>(.get("slow"), on: .api)) { result in
                outcomes.withLock { $0.append(result) }
            }
            await transport.waitForArrivals(1)
            #expect(client.runningCalls == 1)
        }  // the client goes here
        // (Without the release ending it, the held call would never end: the
        // wait's safety deadline fails the test instead of hanging it.)
        try await waitUntil { outcomes.withLock { !$0.isEmpty } }
        await handle?.wait()
        let results = outcomes.withLock { $0 }
        #expect(results.count == 1)
        guard case .failure(let error) = results.first else {
            Issue.record("the call did not fail: \(results)")
            return
        }
        #expect(error.code == .cancelled)
        #expect(error.message.contains("the client was released"))
        #expect(transport.cancelled == ["/v1/slow"])
        handle = nil
        try await waitUntil { probe == nil }
    }

    /// Released at once, before the completion handler's task may even have
    /// begun the call: the call still ends, however the two interleave.
    @Test func aCallThatStartsAfterTheReleaseEndsToo() async throws {
        for _ in 0..<50 {
            let transport = HeldTransport()
            let outcome = Locked<CourierError?>(nil)
            var client: APIClient? = APIClient(transport: transport)
            let handle = client?.send(Endpoint<RawResponse>(.get("slow"), on: .api)) { result in
                if case .failure(let error) = result { outcome.withLock { $0 = error } }
            }
            client = nil
            try await waitUntil { outcome.withLock { $0 != nil } }
            await handle?.wait()
            #expect(outcome.withLock { $0?.message.contains("the client was released") } == true)
        }
    }
}
