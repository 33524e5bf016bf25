import CourierCodable
import CourierCore
import CourierTesting
import Synchronization
import Testing

/// `coalesce.json`: identical calls in flight share one exchange, seen from
/// the server's journal.
struct CoalescingContracts {
    /// `GET items?page=1`, coalesced; its attempt waits for `gate` before
    /// sending, so every caller joins before anything is sent.
    static func items(_ server: ContractServer, gate: TestGate) -> Endpoint<User> {
        var endpoint = Endpoint<User>(.get("items"), on: server.node()).adding(query: ["page": 1]).coalesced()
        endpoint.spec.attemptInterceptors = [
            ClosureInterceptor(name: "gate") { request, _, next in
                await gate.wait()
                return try await next(request)
            }.declaring(.none)  // it adds no credential: the calls may share
        ]
        return endpoint
    }

    static func start(_ client: APIClient, _ endpoint: Endpoint<User>) -> Task<
        Result<User, CourierError>, Never
    > {
        Task {
            do throws(CourierError) {
                return .success(try await client.send(endpoint))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Returns once `count` calls share the client's exchange (no clock; the deadline catches a hang).
    static func settle(_ client: APIClient, coalesced count: Int) async throws {
        try await withDeadline("\(count) coalesced calls") {
            try await waitUntil { client.coalescedCalls == count }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func twentyCallsOneExchange(kind: ContractTransport) async throws {
        try await contract("flow: 20 identical coalesced GETs, one exchange, 20 equal results", kind) {
            try await ContractServer.with("coalesce.json") { server in
                let client = makeClient(kind)
                let gate = TestGate()
                let calls = (0..<20).map { _ in Self.start(client, Self.items(server, gate: gate)) }
                try await Self.settle(client, coalesced: 20)
                gate.open()
                var users: [User] = []
                for call in calls {
                    if case .success(let user) = await call.value { users.append(user) }
                }
                check(users.count == 20 && Set(users.map(\.id)) == [7], "20 equal results: \(users.count)")
                try await server.exchanges().expectCount("coalesce-items", .exactly(1))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func theLastCallerKeepsTheExchange(kind: ContractTransport) async throws {
        try await contract("flow: 19 of 20 coalesced callers cancel, the last gets its result", kind) {
            try await ContractServer.with("coalesce.json") { server in
                let client = makeClient(kind)
                let gate = TestGate()
                let calls = (0..<20).map { _ in Self.start(client, Self.items(server, gate: gate)) }
                try await Self.settle(client, coalesced: 20)
                // The first caller, which started the exchange, cancels too.
                for call in calls.dropLast() { call.cancel() }
                for call in calls.dropLast() {
                    guard case .failure(let error) = await call.value else {
                        check(false, "a cancelled caller succeeded")
                        continue
                    }
                    check(error.code == .cancelled, "cancelled: \(error.code)")
                }
                try await Self.settle(client, coalesced: 1)
                gate.open()
                let last = await calls[19].value
                check((try? last.get())?.id == 7, "the last caller's result: \(last)")
                try await server.exchanges().expectCount("coalesce-items", .exactly(1))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func cancellingEveryCallerClosesTheConnection(kind: ContractTransport) async throws {
        try await contract(
            "flow: all 20 coalesced callers cancel, the server sees the connection close", kind
        ) {
            try await ContractServer.with("coalesce.json") { server in
                let client = makeClient(kind)
                let endpoint = Endpoint<User>(.get("stalled"), on: server.node()).coalesced()
                let calls = (0..<20).map { _ in Self.start(client, endpoint) }
                try await Self.settle(client, coalesced: 20)
                try await withDeadline("the stalled request reaches the server") {
                    while try await server.exchanges().attempts("coalesce-stall").isEmpty {
                        await Task.yield()
                    }
                }
                for call in calls { call.cancel() }
                for call in calls {
                    if case .success = await call.value { check(false, "a cancelled caller succeeded") }
                }
                let closed = try await withDeadline("the server sees the connection close") {
                    while try await
                        !(server.exchanges().attempts("coalesce-stall").first?.connectionClosed ?? false)
                    {
                        await Task.yield()
                    }
                    return true
                }
                check(closed, "connection closed")
                try await server.exchanges().expectCount("coalesce-stall", .exactly(1))
                check(client.coalescedCalls == 0, "nothing left in flight")
            }
        }
    }
}
