import CourierCodable
import CourierCore
import CourierTesting
import CourierTransfers
import HTTPTypes
import NIOConcurrencyHelpers
import Synchronization
import Testing

/// `pipeline.json`: what the call pipeline promises around the network —
/// attempts and the deadline belong to the call, a replay continues them,
/// and `cancelAll` ends transfers that are really in flight.
struct PipelineContracts {
    /// Stamps each attempt's number on the request, so the journal shows it.
    static let stampAttempt = ClosureInterceptor(name: "stamp attempt") { request, context, next in
        var request = request
        request.head.headerFields[HTTPField.Name("X-Attempt") ?? .via] = "\(context.attempt)"
        return try await next(request)
    }

    /// The token the refreshing interceptor sends.
    final class Token: Sendable {
        private let value = NIOLockedValueBox("stale")
        var current: String { value.withLockedValue { $0 } }
        func refresh() { value.withLockedValue { $0 = "fresh" } }
    }

    /// Sends the current token; on a 401, refreshes it once and sends again.
    static func refreshing(_ token: Token) -> ClosureInterceptor {
        ClosureInterceptor(name: "refresh on 401") { request, _, next in
            var request = request
            request.head.headerFields[.authorization] = "Bearer \(token.current)"
            do {
                return try await next(request)
            } catch let error as CourierError where error.response?.statusCode == 401 {
                token.refresh()
                request.head.headerFields[.authorization] = "Bearer fresh"
                return try await next(request)
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aTokenReplayContinuesTheAttemptCount(kind: ContractTransport) async throws {
        try await contract("pipeline: a token replay is the call's next attempt", kind) {
            try await ContractServer.with(
                "pipeline.json", required: ["pipeline-me-stale", "pipeline-me-fresh"]
            ) { server in
                let token = Token()
                let client = makeClient(
                    kind, interceptors: [Self.refreshing(token)], attemptInterceptors: [Self.stampAttempt])
                let reply = try await client.response(Endpoint<User>(.get("me"), on: server.node()))
                check(reply.model.id == 7, "decoded \(reply.model)")
                check(reply.attempts == 2, "attempts \(reply.attempts)")
                let journal = try await server.exchanges()
                journal.expectOrder(["pipeline-me-stale", "pipeline-me-fresh"])
                let stamps = journal.all.map { $0.header("X-Attempt") }
                check(stamps == ["1", "2"], "attempt numbers on the wire: \(stamps)")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func theAttemptLimitHoldsAcrossAReplay(kind: ContractTransport) async throws {
        try await contract("pipeline: a replay gets no fresh retry budget", kind) {
            try await ContractServer.with("pipeline.json", required: ["pipeline-down"]) { server in
                let replay = ClosureInterceptor(name: "replay once") { request, _, next in
                    do { return try await next(request) } catch { return try await next(request) }
                }
                let client = makeClient(
                    kind, retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none), interceptors: [replay])
                let error = await expectCourierError("down") {
                    try await client.send(Endpoint<User>(.get("down"), on: server.node()))
                }
                // Two attempts by the policy, one by the interceptor: three, not four.
                check(error?.attempt == 3, "\(String(describing: error))")
                check(error?.response?.statusCode == 503, "\(String(describing: error))")
                try await server.exchanges().expectCount("pipeline-down", .exactly(3))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func cancelAllEndsTransfersInFlight(kind: ContractTransport) async throws {
        try await contract("pipeline: cancelAll ends every call mid-transfer, once", kind) {
            try await ContractServer.with("pipeline.json", required: ["pipeline-slow", "pipeline-ok"]) {
                server in
                try await kind.withFresh { transport in
                    let client = makeClient(kind, transport: transport)
                    let (bodies, started) = AsyncStream.makeStream(of: Void.self)
                    let endpoint = Endpoint<RawResponse>(.get("slow"), on: server.node(envelope: nil))
                    // Three calls, each stalled after the first bytes of its body.
                    let calls = (0..<3).map { _ in
                        Task {
                            let once = NIOLockedValueBox(false)
                            return try await client.send(endpoint) { progress in
                                guard progress.direction == .download, progress.completed > 0,
                                    !once.withLockedValue({ $0 })
                                else { return }
                                once.withLockedValue { $0 = true }
                                started.yield()
                            }
                        }
                    }
                    let inFlight = try await withDeadline("three bodies under way") {
                        var count = 0
                        for await _ in bodies {
                            count += 1
                            if count == 3 { break }
                        }
                        return count
                    }
                    check(inFlight == 3, "in flight: \(inFlight)")
                    client.cancelAll()
                    for call in calls {
                        let error = await expectCourierError("slow") { try await call.value }
                        check(error?.code == .cancelled, "\(String(describing: error))")
                    }
                    check(client.runningCalls == 0, "still running: \(client.runningCalls)")
                    // The client and its transport go on working.
                    let user = try await client.send(Endpoint<User>(.get("ok"), on: server.node()))
                    check(user.id == 7, "after cancelAll: \(user)")
                }
            }
        }
    }

    /// A plugin the contract holds weakly: it lives as long as the client's settings.
    final class LifetimeProbe: Plugin {
        func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }
    }

    @Test(arguments: ContractTransport.allCases)
    func releasingTheClientEndsItsCallMidTransfer(kind: ContractTransport) async throws {
        try await contract("pipeline: a released client ends its call mid-transfer and leaves nothing", kind)
        {
            try await ContractServer.with("pipeline.json", required: ["pipeline-slow", "pipeline-ok"]) {
                server in
                try await kind.withFresh { transport in
                    weak var probe: LifetimeProbe?
                    let outcome = NIOLockedValueBox<Result<RawResponse, CourierError>?>(nil)
                    let (bodies, started) = AsyncStream.makeStream(of: Void.self)
                    var handle: CancellableCall?
                    do {
                        let plugin = LifetimeProbe()
                        probe = plugin
                        let client = makeClient(kind, transport: transport, plugins: [plugin])
                        let once = NIOLockedValueBox(false)
                        let endpoint = Endpoint<RawResponse>(.get("slow"), on: server.node(envelope: nil))
                        handle = client.send(
                            endpoint,
                            progress: { progress in
                                guard progress.direction == .download, progress.completed > 0,
                                    !once.withLockedValue({ $0 })
                                else { return }
                                once.withLockedValue { $0 = true }
                                started.yield()
                            },
                            completion: { result in outcome.withLockedValue { $0 = result } })
                        // Stalled after the first bytes of its body, then the client goes.
                        try await withDeadline("the body under way") {
                            for await _ in bodies { break }
                        }
                    }
                    try await waitUntil("the completion ran") { outcome.withLockedValue { $0 != nil } }
                    let result = outcome.withLockedValue { $0 }
                    guard case .failure(let error) = result else {
                        check(false, "the call did not fail: \(String(describing: result))")
                        return
                    }
                    check(error.code == .cancelled, "\(error)")
                    check(error.message.contains("the client was released"), "\(error)")
                    await handle?.wait()
                    handle = nil
                    // Nothing keeps the client's settings: not the call, not the transport.
                    try await waitUntil("the client's settings freed") { probe == nil }
                    // The transport goes on working for another client.
                    let user = try await makeClient(kind, transport: transport).send(
                        Endpoint<User>(.get("ok"), on: server.node()))
                    check(user.id == 7, "after the release: \(user)")
                }
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aPreparedCallSendsNothingUntilResumed(kind: ContractTransport) async throws {
        try await contract("pipeline: a prepared call sends nothing until resumed", kind) {
            try await ContractServer.with("pipeline.json", required: ["pipeline-ok"]) { server in
                let client = makeClient(kind)
                let result = NIOLockedValueBox<Result<User, CourierError>?>(nil)
                let call = client.prepare(Endpoint<User>(.get("ok"), on: server.node())) { outcome in
                    result.withLockedValue { $0 = outcome }
                }
                // A call made and answered after it: the prepared one is still unsent.
                _ = try await client.send(Endpoint<User>(.get("ok"), on: server.node()))
                try await server.exchanges().expectCount("pipeline-ok", .exactly(1))
                call.resume()
                await call.wait()
                let user = try result.withLockedValue { $0 }?.get()
                check(user?.id == 7, "\(String(describing: user))")
                try await server.exchanges().expectCount("pipeline-ok", .exactly(2))
                withExtendedLifetime(client) {}
            }
        }
    }
}
