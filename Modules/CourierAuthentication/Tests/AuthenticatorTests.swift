import CourierAuthentication
import CourierCodable
@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Synchronization
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// ``Authenticator`` through the pipeline, against a stub server that
/// accepts only the current token.
struct AuthenticatorTests {
    /// A provider made of closures, counting its refreshes.
    struct Provider: CredentialProvider {
        let refreshes = Counter()
        var expired: @Sendable (String) -> Bool = { _ in false }
        var failureCodes: Set<Int> = [401]
        var businessCode: EnvelopeCode?
        let body: @Sendable (String) async throws -> String

        func apply(_ credential: String, to request: inout HTTPRequest) throws {
            request.headerFields[.authorization] = "Bearer \(credential)"
        }
        func refresh(_ credential: String, through client: APIClient) async throws -> String {
            _ = refreshes.increment()
            return try await body(credential)
        }
        func isExpired(_ credential: String, now: Date) -> Bool { expired(credential) }
        func isAuthenticationFailure(_ error: CourierError) -> Bool {
            if let businessCode { return error.businessFailure?.code == businessCode }
            return error.code == .status && failureCodes.contains(error.response?.statusCode ?? 0)
        }
    }

    /// Answers 200 to `Bearer <valid>` and 401 to anything else; records every request.
    static func server(valid: String) -> RecordingTransport {
        RecordingTransport(
            StubTransport { request in
                request.head.headerFields[.authorization] == "Bearer \(valid)"
                    ? .json(#"{"ok":true}"#) : .status(401)
            })
    }

    static func client(_ transport: any Transport, _ auth: any Interceptor, clock: TestClock = TestClock())
        -> APIClient
    {
        APIClient(configuration: .init(transport: transport, callInterceptors: [auth], clock: clock))
    }

    static let endpoint = Endpoint<RawResponse>(.get("me"), on: .api)

    /// The error a call of ``endpoint`` ends with, or `nil` when it succeeds.
    static func failure(of client: APIClient) async -> CourierError? {
        do throws(CourierError) {
            _ = try await client.send(Self.endpoint)
            return nil
        } catch {
            return error
        }
    }

    /// A client whose authenticator's refresh (to `new`) waits for the gate,
    /// against a server that accepts only `new`.
    static func gatedRefresh() -> (TestGate, Provider, Authenticator<Provider>, RecordingTransport, APIClient)
    {
        let gate = TestGate()
        let provider = Provider { _ in
            await gate.wait()
            return "new"
        }
        let auth = Authenticator(provider, for: [.api], credential: "old")
        let server = Self.server(valid: "new")
        return (gate, provider, auth, server, Self.client(server, auth))
    }

    struct RefreshRefused: Error {}

    /// An authenticator whose refresh waits for the gate, then fails with ``RefreshRefused``.
    static func gatedRefusal() -> (TestGate, Provider, Authenticator<Provider>) {
        let gate = TestGate()
        let provider = Provider { _ in
            await gate.wait()
            throw RefreshRefused()
        }
        return (gate, provider, Authenticator(provider, for: [.api], credential: "old"))
    }

    static func authorizations(_ transport: RecordingTransport) -> [String] {
        transport.records.map { $0.head.headerFields[.authorization] ?? "-" }
    }

    @Test func fiftyConcurrentFailuresCauseOneRefreshAndOneReplayEach() async throws {
        let (gate, provider, auth, server, client) = Self.gatedRefresh()
        let calls = (0..<50).map { _ in Task { try await client.response(Self.endpoint) } }
        // Every call waits: those that failed with the old token, and those
        // that found the refresh in flight before sending.
        try await waitUntil { auth.waitingCalls >= 50 }
        let before = Self.authorizations(server)
        #expect(!before.isEmpty)
        #expect(before.allSatisfy { $0 == "Bearer old" })
        gate.open()
        var sentTwice = 0
        for call in calls {
            let reply = try await call.value
            #expect(reply.response?.statusCode == 200)
            #expect(reply.attempts == 1 || reply.attempts == 2)
            if reply.attempts == 2 { sentTwice += 1 }
        }
        #expect(sentTwice == before.count)
        #expect(provider.refreshes.value == 1)
        // Then each call once with the new token, none with the old one again.
        #expect(
            Array(Self.authorizations(server).dropFirst(before.count))
                == Array(repeating: "Bearer new", count: 50))
        #expect(auth.credential == "new")
    }

    @Test func anExpiredCredentialIsRefreshedBeforeAnythingIsSent() async throws {
        let provider = Provider(expired: { $0 == "old" }, body: { _ in "new" })
        let auth = Authenticator(provider, for: [.api], credential: "old")
        let server = Self.server(valid: "new")
        let client = Self.client(server, auth)
        async let first = client.response(Self.endpoint)
        async let second = client.response(Self.endpoint)
        let replies = try await [first, second]
        #expect(replies.map(\.attempts) == [1, 1])
        #expect(Self.authorizations(server) == ["Bearer new", "Bearer new"])
        #expect(provider.refreshes.value == 1)
    }

    @Test func aFailedRefreshFailsEveryWaitingCallOnceAndReplaysNone() async throws {
        let (gate, provider, auth) = Self.gatedRefusal()
        let server = Self.server(valid: "new")
        let client = Self.client(server, auth)
        let calls = (0..<20).map { _ in
            Task { () -> CourierError? in
                do throws(CourierError) {
                    _ = try await client.send(Self.endpoint)
                    return nil
                } catch {
                    return error
                }
            }
        }
        try await waitUntil { auth.waitingCalls >= 20 }
        let sent = Self.authorizations(server)
        gate.open()
        var withResponse = 0
        for call in calls {
            let error = try #require(await call.value)
            #expect(error.code == .authentication)
            #expect(error.stage == .authentication)
            #expect(error.underlying is RefreshRefused)
            // A call that was refused carries its 401; one that waited before sending has none.
            if let response = error.response {
                #expect(response.statusCode == 401)
                withResponse += 1
            }
        }
        #expect(withResponse == sent.count)
        #expect(provider.refreshes.value == 1)
        // Nothing was sent after the refresh failed.
        #expect(Self.authorizations(server) == sent)
        #expect(sent.allSatisfy { $0 == "Bearer old" })
    }

    @Test func theRefreshMayCallThroughTheSameClientWithoutWaitingForItself() async throws {
        let server = RecordingTransport(
            StubTransport { request in
                if request.head.path == "/v1/token" { return .json(#"{"token":"new"}"#) }
                return request.head.headerFields[.authorization] == "Bearer new" ? .json("{}") : .status(401)
            })
        let clientBox = Locked<APIClient?>(nil)
        let provider = Provider { _ in
            guard let client = clientBox.withLock({ $0 }) else { return "none" }
            let reply = try await client.send(Endpoint<RawResponse>(.post("token"), on: .api))
            return String(decoding: reply.body.bytes ?? [], as: UTF8.self).contains("new") ? "new" : "wrong"
        }
        let auth = Authenticator(provider, for: [.api], credential: "old")
        let client = Self.client(server, auth)
        clientBox.withLock { $0 = client }
        // The box closes a cycle (client → authenticator → provider → box → client): open it at the end.
        defer { clientBox.withLock { $0 = nil } }
        let reply = try await client.response(Self.endpoint)
        #expect(reply.response?.statusCode == 200)
        let records = server.records.map {
            "\($0.head.path ?? "") \($0.head.headerFields[.authorization] ?? "-")"
        }
        // The token call is sent as it is: not signed, not waiting.
        #expect(records == ["/v1/me Bearer old", "/v1/token -", "/v1/me Bearer new"])
    }

    @Test func anEndpointWithoutAuthenticationIsLeftAlone() async throws {
        let provider = Provider { _ in "new" }
        let auth = Authenticator(provider, for: [.api], credential: "old")
        let server = Self.server(valid: "new")
        let client = Self.client(server, auth)
        let error = await expectFailure(client, Self.endpoint.withoutAuthentication())
        #expect(error?.code == .status)
        #expect(Self.authorizations(server) == ["-"])
        #expect(provider.refreshes.value == 0)
    }

    @Test func aReplayThatFailsAgainEndsTheCallWithThatFailure() async throws {
        let provider = Provider { _ in "still-wrong" }
        let auth = Authenticator(provider, for: [.api], credential: "old")
        let server = Self.server(valid: "never")
        let client = Self.client(server, auth)
        let error = await expectFailure(client, Self.endpoint)
        #expect(error?.code == .status)
        #expect(error?.response?.statusCode == 401)
        #expect(error?.attempt == 2)
        #expect(Self.authorizations(server) == ["Bearer old", "Bearer still-wrong"])
        #expect(provider.refreshes.value == 1)
    }

    @Test func theLoopGuardStopsRefreshingTooOften() async throws {
        let provider = Provider { old in old + "+" }
        // The window on a clock that moves only when told (never, here): the
        // four calls fall in it however long a loaded machine takes over
        // them (on the system clock, 42 s under ThreadSanitizer and `stress`).
        let auth = Authenticator(
            provider, for: [.api], credential: "t", maxRefreshes: 3, window: .seconds(30),
            clock: TestClock(mode: .manual))
        let server = Self.server(valid: "never")
        let client = Self.client(server, auth)
        for _ in 0..<3 {
            #expect(await expectFailure(client, Self.endpoint)?.code == .status)
        }
        let error = await expectFailure(client, Self.endpoint)
        #expect(error?.code == .authentication)
        #expect(error?.message.contains("loop guard") == true)
        #expect(provider.refreshes.value == 3)
    }

    @Test func anEnvelopeBusinessCodeCanMeanNotAuthenticated() async throws {
        var provider = Provider { _ in "new" }
        provider.businessCode = 4010
        let auth = Authenticator(provider, for: [.api], credential: "old")
        let server = RecordingTransport(
            StubTransport { request in
                request.head.headerFields[.authorization] == "Bearer new"
                    ? .envelope(code: 0, data: #"{"id":1,"name":"Ada"}"#)
                    : .envelope(code: 4010, msg: "token expired")
            })
        let client = APIClient(
            configuration: .init(
                transport: server, decoder: .codable, callInterceptors: [auth], clock: TestClock()))
        let user = try await client.send(Endpoint<User>(.get("me"), on: .enveloped))
        #expect(user == User(id: 1, name: "Ada"))
        #expect(Self.authorizations(server) == ["Bearer old", "Bearer new"])
    }

    @Test func cancellingOneWaitingCallLeavesTheOthersAndTheRefreshAlone() async throws {
        let (gate, provider, auth, server, client) = Self.gatedRefresh()
        let calls = (0..<3).map { _ in
            Task { () -> CourierError.Code? in
                do throws(CourierError) {
                    _ = try await client.send(Self.endpoint)
                    return nil
                } catch {
                    return error.code
                }
            }
        }
        try await waitUntil { auth.waitingCalls >= 3 }
        calls[1].cancel()
        #expect(await calls[1].value == .cancelled)
        #expect(auth.waitingCalls == 2)
        gate.open()
        #expect(await calls[0].value == nil)
        #expect(await calls[2].value == nil)
        #expect(provider.refreshes.value == 1)
        #expect(Self.authorizations(server).filter { $0 == "Bearer new" }.count == 2)
    }

    @Test func cancellingTheCallThatStartedTheRefreshDoesNotCancelIt() async throws {
        let gate = TestGate()
        let provider = Provider { _ in
            await gate.wait()
            try Task.checkCancellation()
            return "new"
        }
        let auth = Authenticator(provider, for: [.api], credential: "old")
        let client = Self.client(Self.server(valid: "new"), auth)
        let first = Task { try await client.send(Self.endpoint) }
        try await waitUntil { auth.waitingCalls >= 1 }
        let second = Task { try await client.send(Self.endpoint) }
        try await waitUntil { auth.waitingCalls >= 2 }
        first.cancel()
        gate.open()
        _ = try await second.value
        #expect(auth.credential == "new")
    }

    @Test func aRefreshThatNeverEndsTimesOut() async throws {
        let clock = TestClock(mode: .manual)
        let provider = Provider { _ in
            // Never answers: waits on a stream nothing feeds until the timeout cancels it.
            let (never, _) = AsyncStream<Void>.makeStream()
            for await _ in never {}
            throw CancellationError()
        }
        let auth = Authenticator(
            provider, for: [.api], credential: "old", refreshTimeout: .seconds(60), clock: clock)
        let client = Self.client(Self.server(valid: "new"), auth, clock: clock)
        let call = Task { await Self.failure(of: client) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(60))
        let error = try #require(await call.value)
        #expect(error.code == .authentication)
        #expect(error.underlying is RefreshTimedOut)
    }

    /// The obvious test setup — the client and the authenticator on one
    /// auto-advancing `TestClock` — refreshes: the refresh timeout is a
    /// timeout, which waits for the test, not a delay that returns at once.
    /// The refresh is held until the timeout is armed, so a timeout that
    /// fired at once would have won.
    @Test func anAutoAdvancingTestClockLetsARefreshEnd() async throws {
        let clock = TestClock()
        let gate = TestGate()
        let provider = Provider { _ in
            await gate.wait()
            return "new"
        }
        let auth = Authenticator(provider, for: [.api], credential: "old", clock: clock)
        let server = Self.server(valid: "new")
        let client = Self.client(server, auth, clock: clock)
        let call = Task { await Self.failure(of: client) }
        await clock.waitForSleeps(1)
        #expect(clock.sleeps == [.seconds(60)])
        gate.open()
        let error = await call.value
        #expect(error == nil, "\(String(describing: error))")
        #expect(Self.authorizations(server) == ["Bearer old", "Bearer new"])
    }

    /// A client-credentials provider: fetches a token from nothing, counting.
    struct ClientCredentials: InitialCredentialProvider {
        let fetches = Counter()
        let gate: TestGate
        func apply(_ token: String, to request: inout HTTPRequest) {
            request.headerFields[.authorization] = "Bearer \(token)"
        }
        func initialCredential(through client: APIClient) async throws -> String {
            let count = fetches.increment()
            await gate.wait()
            return "fetched-\(count)"
        }
        func refresh(_ token: String, through client: APIClient) async throws -> String {
            try await initialCredential(through: client)
        }
    }

    /// An authenticator made without a credential, over a provider that can
    /// fetch one, fetches it on the first call — once for three calls — and
    /// again after the credential was removed.
    @Test func aProviderThatFetchesTheFirstCredentialNeedsNoPlaceholder() async throws {
        let gate = TestGate()
        let provider = ClientCredentials(gate: gate)
        let auth = Authenticator(provider, for: [.api])
        let server = RecordingTransport(
            StubTransport { request in
                request.head.headerFields[.authorization]?.hasPrefix("Bearer fetched-") == true
                    ? .json(#"{"ok":true}"#) : .status(401)
            })
        let client = Self.client(server, auth)
        let calls = (0..<3).map { _ in Task { try await client.send(Self.endpoint) } }
        try await waitUntil { auth.waitingCalls >= 3 }
        gate.open()
        for call in calls { _ = try await call.value }
        #expect(provider.fetches.value == 1)
        #expect(Self.authorizations(server) == Array(repeating: "Bearer fetched-1", count: 3))
        auth.removeCredential()
        _ = try await client.send(Self.endpoint)
        #expect(provider.fetches.value == 2)
        #expect(auth.credential == "fetched-2")
    }

    @Test func a401ArrivingAfterTheRefreshFailedFailsWithoutAnotherRefresh() async throws {
        let (gate, provider, auth) = Self.gatedRefusal()
        let transport = HeldTransport()
        let client = Self.client(transport, auth)
        let calls = (0..<2).map { _ in Task { await expectFailure(client, Self.endpoint) } }
        await transport.waitForArrivals(2)
        // One 401 starts the refresh, which fails; only then is the other request answered.
        transport.answer("/v1/me", with: .status(401))
        try await waitUntil { auth.waitingCalls >= 1 }
        gate.open()
        try await waitUntil { auth.waitingCalls == 0 }
        #expect(transport.holding == ["/v1/me"])
        transport.answer("/v1/me", with: .status(401))
        for call in calls {
            let error = await call.value
            #expect(error?.code == .authentication)
            #expect(error?.underlying is RefreshRefused)
            #expect(error?.response?.statusCode == 401)
        }
        #expect(provider.refreshes.value == 1)
        #expect(transport.arrivals.count == 2)
    }

    @Test func aReplacedCredentialReleasesTheWaitersAndIsUsedAfterwards() async throws {
        let (_, provider, auth, server, client) = Self.gatedRefresh()
        let waiting = Task { try await client.response(Self.endpoint) }
        try await waitUntil { auth.waitingCalls >= 1 }
        // The user logged in again while the refresh hangs.
        auth.replaceCredential(with: "new")
        #expect(try await waiting.value.attempts == 2)
        _ = try await client.send(Self.endpoint)
        #expect(Self.authorizations(server) == ["Bearer old", "Bearer new", "Bearer new"])
        #expect(provider.refreshes.value == 1)
    }

    @Test func cancelAllEndsTheCallsWaitingForARefresh() async throws {
        let (gate, provider, auth, _, client) = Self.gatedRefresh()
        let calls = (0..<2).map { _ in Task { await expectFailure(client, Self.endpoint) } }
        try await waitUntil { auth.waitingCalls >= 2 }
        client.cancelAll()
        for call in calls { #expect(await call.value?.code == .cancelled) }
        #expect(auth.waitingCalls == 0)
        // The refresh itself goes on.
        gate.open()
        try await waitUntil { auth.credential == "new" }
        #expect(provider.refreshes.value == 1)
    }
}
