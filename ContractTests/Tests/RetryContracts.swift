import CourierCodable
import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// `retries.json`: how many attempts, on which connections, after which
/// planned delays (read from the injected clock, never from the wall clock).
struct RetryContracts {
    static let policy = RetryPolicy(maxAttempts: 3, jitter: .none)

    @Test(arguments: ContractTransport.allCases)
    func resetThen503ThenSuccess(kind: ContractTransport) async throws {
        try await contract("retries: reset → 503 Retry-After → 200", kind) {
            try await ContractServer.with("retries.json", required: ["flaky"]) { server in
                try await kind.withFresh { transport in
                    let clock = TestClock()
                    let client = makeClient(
                        kind, transport: transport, retryPolicy: Self.policy, clock: clock)
                    let reply = try await client.response(Endpoint<User>(.get("flaky"), on: server.node()))
                    check(reply.model.id == 7 && reply.attempts == 3, "attempts: \(reply.attempts)")
                    let journal = try await server.exchanges()
                    journal.expectCount("flaky", .exactly(3))
                    journal.expectNewConnection("flaky", forAttempt: 1)
                    check(clock.sleeps.count == 2 && clock.sleeps[1] >= .seconds(1), "waits \(clock.sleeps)")
                }
            }
        }
    }

    @Test(arguments: ContractTransport.allCases, ["retry-after-seconds", "retry-after-date"])
    func retryAfterIsALowerBound(kind: ContractTransport, path: String) async throws {
        try await contract("retries: \(path)", kind) {
            try await ContractServer.with("retries.json") { server in
                // The stub's date is 10 s after the test clock's start date.
                let clock = TestClock()
                let client = makeClient(kind, retryPolicy: Self.policy, clock: clock)
                _ = try await client.send(Endpoint<User>(.get("\(path)"), on: server.node()))
                let expected: Duration = path == "retry-after-seconds" ? .seconds(7) : .seconds(10)
                check(
                    clock.sleeps.count == 1 && clock.sleeps[0] >= expected,
                    "planned \(clock.sleeps), at least \(expected)")
                try await server.exchanges().expectCount(path, .exactly(2))
            }
        }
    }

    /// A POST whose bytes may have reached the server is not sent again
    /// unless the caller opted in.
    @Test(arguments: ContractTransport.allCases)
    func postIsNotRetriedAfterBytesWereSent(kind: ContractTransport) async throws {
        try await contract("retries: POST not retried after a reset, unless opted in", kind) {
            try await ContractServer.with("retries.json") { server in
                try await kind.withFresh { transport in
                    let endpoint = Endpoint<User>(
                        .post("orders"), on: server.node(), content: .json(["item": 1]))
                    let error = await expectCourierError("POST orders") {
                        try await makeClient(kind, transport: transport, retryPolicy: Self.policy).send(
                            endpoint)
                    }
                    check(error?.code == .transport && error?.attempt == 1, "\(String(describing: error))")
                    try await server.exchanges().expectCount("create-order", .exactly(1))
                    var optedIn = Self.policy
                    optedIn.retryableMethods.insert(.post)
                    // The sequence moved on: the next exchange succeeds.
                    _ = try await makeClient(kind, transport: transport, retryPolicy: optedIn).send(endpoint)
                    try await server.exchanges().expectCount("create-order", .exactly(2))
                }
            }
        }
    }

    /// A POST that carries an `Idempotency-Key` is retried by the default
    /// policy after a reset, with the same key on the wire both times.
    @Test(arguments: ContractTransport.allCases)
    func aPostWithAnIdempotencyKeyIsRetried(kind: ContractTransport) async throws {
        try await contract("retries: POST with an Idempotency-Key retried, same key", kind) {
            try await ContractServer.with("retries.json", required: ["keyed-order"]) { server in
                try await kind.withFresh { transport in
                    let key = HTTPField.Name("Idempotency-Key") ?? .via
                    let endpoint = Endpoint<User>(
                        .post("keyed-orders"), on: server.node(), content: .json(["item": 1]),
                        headers: [key: "order-7f3a"])
                    let reply = try await makeClient(kind, transport: transport, retryPolicy: Self.policy)
                        .response(endpoint)
                    check(reply.attempts == 2, "attempts \(reply.attempts)")
                    let journal = try await server.exchanges()
                    journal.expectCount("keyed-order", .exactly(2))
                    journal.expectHeader("Idempotency-Key", .equals("order-7f3a"), on: "keyed-order")
                    check(
                        journal.attempts("keyed-order").allSatisfy { $0.body == Array(#"{"item":1}"#.utf8) },
                        "the same body both times")
                }
            }
        }
    }

    /// Nothing was sent when the connection failed: even a POST may go again.
    @Test(arguments: ContractTransport.allCases)
    func aConnectFailureMayBeRetried(kind: ContractTransport) async throws {
        try await contract("retries: connect failure retried, POST included", kind) {
            try await ContractServer.with("retries.json") { server in
                // The first attempt goes to a port where nothing listens.
                let unreachable = ClosureInterceptor { request, context, next in
                    var request = request
                    if context.attempt == 1 { request.head.authority = "127.0.0.1:1" }
                    return try await next(request)
                }
                let client = makeClient(kind, retryPolicy: Self.policy, attemptInterceptors: [unreachable])
                let reply = try await client.response(
                    Endpoint<User>(.post("connect"), on: server.node(), content: .json(["item": 1])))
                check(reply.attempts == 2, "attempts \(reply.attempts)")
                try await server.exchanges().expectCount("connect-then-create", .exactly(1))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func exhaustionReportsTheAttempts(kind: ContractTransport) async throws {
        try await contract("retries: exhaustion carries the attempt count", kind) {
            try await ContractServer.with("retries.json") { server in
                let clock = TestClock()
                let error = await expectCourierError("down") {
                    try await makeClient(kind, retryPolicy: Self.policy, clock: clock).send(
                        Endpoint<User>(.get("down"), on: server.node()))
                }
                check(error?.attempt == 3, "\(String(describing: error))")
                check(error?.response?.statusCode == 503, "last response kept: \(String(describing: error))")
                check(clock.sleeps == [.seconds(2), .seconds(2)], "waits \(clock.sleeps)")
                try await server.exchanges().expectCount("down", .exactly(3))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func theDeadlineSpansAttempts(kind: ContractTransport) async throws {
        try await contract("retries: deadline across attempts", kind) {
            try await ContractServer.with("retries.json", required: ["down-for-long"]) { server in
                // Time is the test clock's: attempt 1 at 0 s, Retry-After: 200 moves it
                // to 200 s for attempt 2, and a second wait would end past the 300 s
                // deadline. The deadline also shortens each attempt's timeout, and the
                // transport enforces that in real time: the virtual times are long so
                // that those real timeouts (the client's 60 s) stay safety nets.
                let clock = TestClock()
                var policy = RetryPolicy(maxAttempts: 10, jitter: .none)
                policy.deadline = .seconds(300)
                policy.maxRetryAfter = .seconds(600)
                let error = await expectCourierError("down-for-long") {
                    try await makeClient(kind, retryPolicy: policy, clock: clock).send(
                        Endpoint<User>(.get("down-for-long"), on: server.node()))
                }
                check(error?.code == .deadlineExceeded, "\(String(describing: error))")
                check(error?.attempt == 2, "\(String(describing: error))")
                check(clock.sleeps == [.seconds(200)], "waits \(clock.sleeps)")
                try await server.exchanges().expectCount("down-for-long", .exactly(2))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func cancellingDuringTheBackoffSendsNothingMore(kind: ContractTransport) async throws {
        try await contract("retries: cancel during backoff", kind) {
            try await ContractServer.with("retries.json") { server in
                let clock = TestClock(mode: .manual)
                let client = makeClient(kind, retryPolicy: Self.policy, clock: clock)
                let call = Task { try await client.send(Endpoint<User>(.get("down"), on: server.node())) }
                try await withDeadline("the first backoff") { await clock.waitForSleepers(1) }
                call.cancel()
                let error = await expectCourierError("down") { try await call.value }
                check(error?.code == .cancelled, "\(String(describing: error))")
                clock.advance(by: .seconds(60))
                try await server.exchanges().expectCount("down", .exactly(1))
            }
        }
    }
}
