import CourierAuthentication
import CourierCodable
import CourierConcurrencyGroups
import CourierCore
import CourierTesting
import HTTPTypes
import Testing

/// `flow.json`: single-flight token refresh and concurrency policies, seen
/// from the server's journal.
struct FlowContracts {
    struct Token: Decodable, Sendable { let token: String }

    /// Refreshes by calling `path` through the client the authenticator serves.
    struct TokenProvider: CredentialProvider {
        let path: String
        let node: Node

        func apply(_ token: String, to request: inout HTTPRequest) throws {
            request.headerFields[.authorization] = "Bearer \(token)"
        }

        func refresh(_ token: String, through client: APIClient) async throws -> String {
            try await client.send(Endpoint<Token>(.post(RoutePath(escaped: path)), on: node)).token
        }
    }

    /// A client whose calls are signed by an authenticator refreshing at `path`.
    static func authenticatedClient(_ kind: ContractTransport, _ server: ContractServer, refreshPath: String)
        -> APIClient
    {
        let node = server.node()
        // Deadlines only a hang reaches: 50 calls and a refresh under
        // ThreadSanitizer on a loaded 2-core machine took over the 60 s defaults.
        let auth = Authenticator(
            TokenProvider(path: refreshPath, node: node), for: [node], credential: "old",
            refreshTimeout: contractSafetyNet)
        return APIClient(
            configuration: .init(
                transport: kind.transport, decoder: .codable, callInterceptors: [auth],
                timeout: contractSafetyNet, clock: TestClock()))
    }

    /// Runs `count` calls of `endpoint` at once; each gives its user or its error.
    static func concurrently(_ count: Int, _ client: APIClient, _ endpoint: Endpoint<User>) async
        -> [Result<User, CourierError>]
    {
        await withTaskGroup(of: Result<User, CourierError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do throws(CourierError) {
                        return .success(try await client.send(endpoint))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func fiftyCallsOneRefresh(kind: ContractTransport) async throws {
        try await contract("flow: 50 concurrent 401s, one refresh, each call once with the new token", kind) {
            try await ContractServer.with("flow.json") { server in
                let client = Self.authenticatedClient(kind, server, refreshPath: "token")
                let results = await Self.concurrently(
                    50, client, Endpoint<User>(.get("me"), on: server.node()))
                let failures = results.compactMap { result -> CourierError? in
                    if case .failure(let error) = result { return error }
                    return nil
                }
                check(failures.isEmpty, "every call succeeds: \(failures.map(\.message))")
                let journal = try await server.exchanges()
                journal.expectCount("auth-token", .exactly(1))
                journal.expectCount("auth-me-new", .exactly(50))
                journal.expectCount("auth-me-old", .atLeast(1))
                let ids = journal.all.map(\.stubID)
                let refresh = ids.firstIndex(of: "auth-token") ?? ids.endIndex
                let firstNew = ids.firstIndex(of: "auth-me-new") ?? ids.endIndex
                check(refresh < firstNew, "no request with the new token before the refresh: \(ids)")
                let token = journal.attempts("auth-token").first
                check(token?.header("Authorization") == nil, "the refresh call is not signed")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aFailedRefreshFailsEveryCallOnce(kind: ContractTransport) async throws {
        try await contract("flow: a refused refresh fails all 50 calls once, replays none", kind) {
            try await ContractServer.with("flow.json") { server in
                let client = Self.authenticatedClient(kind, server, refreshPath: "token-refused")
                let results = await Self.concurrently(
                    50, client, Endpoint<User>(.get("me"), on: server.node()))
                check(results.count == 50, "every call ended once: \(results.count)")
                for result in results {
                    guard case .failure(let error) = result else {
                        check(false, "a call succeeded")
                        continue
                    }
                    check(error.code == .authentication, "typed: \(error.code) \(error.message)")
                    let refresh = error.underlying as? CourierError
                    check(refresh?.businessFailure?.code == 4001, "the refresh's error underneath: \(error)")
                }
                let journal = try await server.exchanges()
                journal.expectCount("auth-token-refused", .exactly(1))
                journal.expectCount("auth-me-new", .exactly(0))
                journal.expectCount("auth-me-old", .atLeast(1))
                journal.expectCount("auth-me-old", .atMost(50))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func theCredentialStaysWithItsOrigin(kind: ContractTransport) async throws {
        try await contract("flow: an authenticator signs nothing sent to an origin outside its scope", kind) {
            try await ContractServer.with("flow.json") { server in
                let node = server.node()
                let elsewhere = try #require(server.nodeAtAnotherOrigin(), "the server has a second name")
                let auth = Authenticator(
                    TokenProvider(path: "token", node: node), for: [node], credential: "new",
                    refreshTimeout: contractSafetyNet)
                let client = APIClient(
                    configuration: .init(
                        transport: kind.transport, decoder: .codable, callInterceptors: [auth],
                        timeout: contractSafetyNet, clock: TestClock()))
                _ = try await client.send(Endpoint<User>(.get("me"), on: node))
                do throws(CourierError) {
                    _ = try await client.send(Endpoint<User>(.get("me"), on: elsewhere))
                    check(false, "the unsigned call to the other origin was refused")
                } catch {
                    check(error.response?.statusCode == 401, "refused as unsigned: \(error)")
                }
                let journal = try await server.exchanges()
                journal.expectCount("auth-me-new", .exactly(1))
                journal.expectCount("auth-me-old", .exactly(1))
                // Its 401 is not the authenticator's business: no refresh.
                journal.expectCount("auth-token", .exactly(0))
                let unsigned = journal.attempts("auth-me-old").first
                check(unsigned?.header("Authorization") == nil, "no credential to the other origin")
                check(
                    journal.attempts("auth-me-new").first?.header("Host") != unsigned?.header("Host"),
                    "the two calls went to two origins")
            }
        }
    }

    // MARK: - Concurrency policies

    /// A call that stays on the network (the server never answers) until cancelled.
    static func stalled(_ client: APIClient, _ server: ContractServer) -> Task<CourierError.Code?, Never> {
        start(client, Endpoint<User>(.get("stall"), on: server.node()))
    }

    static func start(_ client: APIClient, _ endpoint: Endpoint<User>) -> Task<CourierError.Code?, Never> {
        Task {
            do throws(CourierError) {
                _ = try await client.send(endpoint)
                return nil
            } catch {
                return error.code
            }
        }
    }

    static func quick(_ name: String, _ server: ContractServer, _ policy: ConcurrencyPolicy) -> Endpoint<User>
    {
        Endpoint<User>(.get("quick/\(name)"), on: server.node()).concurrency(policy)
    }

    /// Returns once `group` has `running` calls running and `queued` queued
    /// (no clock: it re-checks as other tasks run; the deadline only catches a hang).
    static func settle(_ group: ConcurrencyGroup, running: Int, queued: Int) async throws {
        try await withDeadline("\(running) running and \(queued) queued in \(group)") {
            try await waitUntil { group.runningCalls == running && group.queuedCalls == queued }
        }
    }

    static func client(_ kind: ContractTransport, _ group: ConcurrencyGroup) -> APIClient {
        var configuration = APIClient.Configuration(
            transport: kind.transport, decoder: .codable, timeout: contractSafetyNet, clock: TestClock())
        configuration.concurrencyGroup = group
        return APIClient(configuration: configuration)
    }

    @Test(arguments: ContractTransport.allCases)
    func ignoreCurrent(kind: ContractTransport) async throws {
        try await contract("flow: ignoreCurrent fails while a call runs, sends nothing", kind) {
            try await ContractServer.with("flow.json") { server in
                let group = ConcurrencyGroup("feed")
                let client = Self.client(kind, group)
                let running = Self.stalled(client, server)
                try await Self.settle(group, running: 1, queued: 0)
                let ignored = await Self.start(client, Self.quick("b", server, .ignoreCurrent)).value
                check(ignored == .ignoredByPolicy, "ignored: \(String(describing: ignored))")
                running.cancel()
                check(await running.value == .cancelled, "the stalled call ends when cancelled")
                let after = await Self.start(client, Self.quick("c", server, .ignoreCurrent)).value
                check(after == nil, "runs once nothing runs: \(String(describing: after))")
                let quick = try await server.exchanges().attempts("policy-quick").map(\.target)
                check(quick == ["/quick/c"], "only the later call reached the server: \(quick)")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func cancelOthers(kind: ContractTransport) async throws {
        try await contract("flow: cancelOthers ends running and queued calls, never retried", kind) {
            try await ContractServer.with("flow.json") { server in
                let group = ConcurrencyGroup("search")
                var configuration = APIClient.Configuration(
                    transport: kind.transport, decoder: .codable,
                    retryPolicy: RetryPolicy(maxAttempts: 3, retryIf: { _ in true }),
                    timeout: contractSafetyNet, clock: TestClock())
                configuration.concurrencyGroup = group
                let client = APIClient(configuration: configuration)
                let running = Self.stalled(client, server)
                try await Self.settle(group, running: 1, queued: 0)
                let queued = Self.start(client, Self.quick("b", server, .waitUntilAllDone))
                try await Self.settle(group, running: 1, queued: 1)
                let latest = await Self.start(client, Self.quick("c", server, .cancelOthers)).value
                check(latest == nil, "the cancelling call runs: \(String(describing: latest))")
                check(await running.value == .cancelledByPolicy, "running call cancelled by policy")
                check(await queued.value == .cancelledByPolicy, "queued call cancelled by policy")
                let journal = try await server.exchanges()
                let quick = journal.attempts("policy-quick").map(\.target)
                check(quick == ["/quick/c"], "the queued call never reached the server: \(quick)")
                journal.expectCount("policy-stall", .atMost(1))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func waitWithPriorities(kind: ContractTransport) async throws {
        try await contract("flow: wait(priority:) runs queued calls one at a time, highest first", kind) {
            try await ContractServer.with("flow.json") { server in
                let group = ConcurrencyGroup("cart")
                let client = Self.client(kind, group)
                let running = Self.stalled(client, server)
                try await Self.settle(group, running: 1, queued: 0)
                var waiters: [Task<CourierError.Code?, Never>] = []
                let order: [(String, ConcurrencyPriority)] = [
                    ("low", .low), ("default", .default), ("high", .high),
                ]
                for (index, (name, priority)) in order.enumerated() {
                    waiters.append(Self.start(client, Self.quick(name, server, .wait(priority: priority))))
                    try await Self.settle(group, running: 1, queued: index + 1)
                }
                running.cancel()
                check(await running.value == .cancelled, "the first call ends when cancelled")
                for waiter in waiters { check(await waiter.value == nil, "every waiter runs") }
                let quick = try await server.exchanges().attempts("policy-quick").map(\.target)
                check(quick == ["/quick/high", "/quick/default", "/quick/low"], "highest first: \(quick)")
            }
        }
    }
}
