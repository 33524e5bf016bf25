import CourierCodable
import CourierCore
import CourierTesting
import HTTPTypes
import Testing

/// `interceptors.json`: what interceptors add and change reaches the server,
/// on every attempt, in order.
struct InterceptorContracts {
    /// Appends `name` to the `X-Trace` header.
    static func tracing(_ name: String) -> ClosureInterceptor {
        ClosureInterceptor { request, _, next in
            var request = request
            let trace = HTTPField.Name("X-Trace") ?? .via
            request.head.headerFields[trace] =
                request.head.headerFields[trace].map { "\($0),\(name)" } ?? name
            return try await next(request)
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func headersAndCommonParametersOnEveryAttempt(kind: ContractTransport) async throws {
        try await contract("interceptors: headers and common parameters on every attempt", kind) {
            try await ContractServer.with("interceptors.json") { server in
                let header = ClosureInterceptor { request, _, next in
                    var request = request
                    request.head.headerFields[HTTPField.Name("X-Client") ?? .via] = "courier-contracts"
                    return try await next(request)
                }
                let common = ParameterInterceptor { parameters, location, _ in
                    location == .query ? parameters.merging(["app": "demo"]) : parameters
                }
                let client = APIClient(
                    configuration: .init(
                        transport: kind.transport, decoder: .codable, attemptInterceptors: [header],
                        parameterInterceptors: [common],
                        retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none),
                        timeout: contractSafetyNet, clock: TestClock()))
                let user = try await client.send(Endpoint<User>(.get("items"), on: server.node()))
                check(user.id == 7, "decoded \(user)")
                let journal = try await server.exchanges()
                journal.expectCount("items", .exactly(2))
                journal.expectHeader("X-Client", .equals("courier-contracts"), on: "items")
                check(
                    journal.attempts("items").allSatisfy { $0.target.contains("app=demo") },
                    "query on every attempt")
                journal.expectNoUnmatched()
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func interceptorOrderAndPerEndpointInterceptors(kind: ContractTransport) async throws {
        try await contract("interceptors: order, client then endpoint", kind) {
            try await ContractServer.with("interceptors.json") { server in
                let client = makeClient(
                    kind, interceptors: [Self.tracing("a"), Self.tracing("b"), Self.tracing("c")])
                _ = try await client.send(Endpoint<User>(.get("trace"), on: server.node()))
                var endpoint = Endpoint<User>(.get("trace"), on: server.node())
                endpoint.spec.callInterceptors = [Self.tracing("endpoint")]
                _ = try await client.send(endpoint)
                let traces = try await server.exchanges().attempts("trace").map { $0.header("X-Trace") }
                check(traces == ["a,b,c", "a,b,c,endpoint"], "traces \(traces)")
            }
        }
    }

    /// A per-call header stays the same across attempts (an idempotency key);
    /// a per-attempt one changes (a signature over a timestamp).
    @Test(arguments: ContractTransport.allCases)
    func sameAndDifferentAcrossAttempts(kind: ContractTransport) async throws {
        try await contract("interceptors: idempotency key same, signature different across attempts", kind) {
            try await ContractServer.with("interceptors.json") { server in
                let clock = TestClock()
                let key = ClosureInterceptor { request, context, next in
                    var request = request
                    request.head.headerFields[HTTPField.Name("Idempotency-Key") ?? .via] =
                        "call-\(context.callID)"
                    return try await next(request)
                }
                let signature = ClosureInterceptor { request, context, next in
                    var request = request
                    request.head.headerFields[HTTPField.Name("X-Signature") ?? .via] =
                        "attempt=\(context.attempt);t=\(clock.now)"
                    return try await next(request)
                }
                var policy = RetryPolicy(maxAttempts: 3, jitter: .none)
                policy.retryableMethods.insert(.post)  // opted in: the key makes it safe
                let client = makeClient(
                    kind, retryPolicy: policy, clock: clock, interceptors: [key],
                    attemptInterceptors: [signature])
                _ = try await client.send(
                    Endpoint<User>(.post("payments"), on: server.node(), content: .json(["amount": 5])))
                let journal = try await server.exchanges()
                journal.expectCount("payment", .exactly(2))
                journal.expectHeader("Idempotency-Key", .sameAcrossAttempts, on: "payment")
                journal.expectHeader("X-Signature", .differentAcrossAttempts, on: "payment")
                check(
                    journal.attempts("payment").allSatisfy { $0.body == Array(#"{"amount":5}"#.utf8) },
                    "same body")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aThrowingInterceptorSendsNothing(kind: ContractTransport) async throws {
        try await contract("interceptors: adapt throws, nothing sent", kind) {
            try await ContractServer.with("interceptors.json") { server in
                let refuse = ClosureInterceptor { _, _, _ in throw CourierError.vetoed("no token") }
                let error = await expectCourierError("vetoed") {
                    try await makeClient(kind, interceptors: [refuse]).send(
                        Endpoint<User>(.get("vetoed"), on: server.node()))
                }
                check(error?.code == .vetoed, "\(String(describing: error))")
                try await server.exchanges().expectTotal(.exactly(0))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func responseReplacement(kind: ContractTransport) async throws {
        try await contract("interceptors: response replacement", kind) {
            try await ContractServer.with("interceptors.json") { server in
                let fallback = ClosureInterceptor { request, _, next in
                    let response = try await next(request)
                    guard response.statusCode == 404 else { return response }
                    var head = HTTPResponse(status: .ok)
                    head.headerFields[.contentType] = "application/json"
                    let body = #"{"code":0,"msg":"from cache","data":{"id":1,"name":"Cached"}}"#
                    return RawResponse(head: head, body: .bytes(Array(body.utf8)))
                }
                let user = try await makeClient(kind, attemptInterceptors: [fallback]).send(
                    Endpoint<User>(.get("legacy"), on: server.node()))
                check(user == User(id: 1, name: "Cached"), "replaced: \(user)")
                try await server.exchanges().expectCount("legacy", .exactly(1))
            }
        }
    }
}
