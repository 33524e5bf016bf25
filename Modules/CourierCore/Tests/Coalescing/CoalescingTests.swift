import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

@testable import CourierCore

/// Identical calls in flight share one exchange: what reaches the transport,
/// what each caller gets, and who may cancel it.
struct CoalescingTests {
    static let endpoint = Endpoint<RawResponse>(.get("items"), on: .api).coalesced()

    static func start(
        _ client: APIClient, _ endpoint: Endpoint<RawResponse> = endpoint, plugins: [any Plugin] = []
    )
        -> Task<Result<Reply<RawResponse>, CourierError>, Never>
    {
        Task {
            do throws(CourierError) {
                return .success(try await client.response(endpoint, plugins: plugins))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Returns once `count` callers wait for the exchange of `endpoint`'s
    /// request (no clock: it re-checks as other tasks run).
    static func waitForCallers(_ count: Int, _ client: APIClient) async throws {
        try await waitUntil {
            client.services.inFlight.count > 0 && client.services.inFlight.callersInFlight >= count
        }
    }

    @Test func twentyIdenticalCallsShareOneExchange() async throws {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let calls = (0..<20).map { _ in Self.start(client) }
        try await Self.waitForCallers(20, client)
        await transport.waitForArrivals(1)
        #expect(transport.arrivals == ["/v1/items"])
        transport.answer("/v1/items", with: .json(#"{"n":1}"#))
        var attempts: [Int] = []
        for call in calls {
            let reply = try await call.value.get()
            #expect(reply.model.body.bytes == Array(#"{"n":1}"#.utf8))
            attempts.append(reply.attempts)
        }
        // The call that sent it counts the attempt; the others sent nothing.
        #expect(attempts.sorted() == Array(repeating: 0, count: 19) + [1])
        #expect(client.services.inFlight.count == 0)
        // The next call starts a new exchange.
        let later = Self.start(client)
        await transport.waitForArrivals(2)
        transport.answer("/v1/items")
        _ = try await later.value.get()
    }

    @Test func cancellingAllButOneLeavesTheExchangeToTheLast() async throws {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let calls = (0..<20).map { _ in Self.start(client) }
        try await Self.waitForCallers(20, client)
        for call in calls.dropLast() { call.cancel() }
        for call in calls.dropLast() { #expect(await call.value.failureValue?.code == .cancelled) }
        #expect(client.services.inFlight.callersInFlight == 1)
        transport.answer("/v1/items")
        let last = try await calls[19].value.get()
        #expect(last.response?.statusCode == 200)
        #expect(transport.cancelled.isEmpty)
    }

    @Test func cancellingEveryCallerCancelsTheExchange() async throws {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let calls = (0..<20).map { _ in Self.start(client) }
        try await Self.waitForCallers(20, client)
        await transport.waitForArrivals(1)
        for call in calls { call.cancel() }
        for call in calls { #expect(await call.value.failureValue?.code == .cancelled) }
        try await waitUntil { !transport.cancelled.isEmpty }
        #expect(transport.cancelled == ["/v1/items"])
        #expect(client.services.inFlight.count == 0)
    }

    @Test func cancelAllEndsEveryCallerAndTheExchange() async throws {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let calls = (0..<5).map { _ in Self.start(client) }
        try await Self.waitForCallers(5, client)
        await transport.waitForArrivals(1)
        client.cancelAll()
        for call in calls { #expect(await call.value.failureValue?.code == .cancelled) }
        try await waitUntil { !transport.cancelled.isEmpty }
        #expect(client.services.inFlight.count == 0)
    }

    @Test func anErrorIsSharedToo() async throws {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let calls = (0..<3).map { _ in Self.start(client) }
        try await Self.waitForCallers(3, client)
        await transport.waitForArrivals(1)
        transport.answer("/v1/items", with: .status(500))
        for call in calls {
            let error = await call.value.failureValue
            #expect(error?.code == .status)
            #expect(error?.response?.statusCode == 500)
        }
        #expect(transport.arrivals.count == 1)
    }

    /// Starts two calls at once and says how many requests reached the transport.
    static func exchanges(
        _ first: Endpoint<RawResponse>, _ second: Endpoint<RawResponse>, plugins: [[any Plugin]] = [[], []]
    ) async throws -> Int {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let calls = [
            Self.start(client, first, plugins: plugins[0]), Self.start(client, second, plugins: plugins[1]),
        ]
        // Settled when each call either waits in an exchange that reached
        // the transport, or reached the transport itself.
        try await waitUntil {
            client.services.inFlight.callersInFlight + transport.arrivals.count
                - client.services.inFlight.count == 2
        }
        let count = transport.arrivals.count
        for path in transport.arrivals { transport.answer(path) }
        for call in calls { _ = try await call.value.get() }
        return count
    }

    @Test func onlyIdenticalRequestsOfOneEndpointCoalesce() async throws {
        let items = Self.endpoint
        #expect(try await Self.exchanges(items, items) == 1)
        #expect(try await Self.exchanges(items, items.adding(query: ["b": 2, "a": 1])) == 2)
        #expect(
            try await Self.exchanges(
                items.adding(query: ["a": 1, "b": 2]), items.adding(query: ["b": 2, "a": 1])) == 1)
        #expect(
            try await Self.exchanges(
                items.adding(headers: [.authorization: "Bearer a"]),
                items.adding(headers: [.authorization: "Bearer b"]))
                == 2)
        var search = Endpoint<RawResponse>(.post("search"), on: .api)
        search.content = .json(["q": "x"] as Parameters)
        #expect(try await Self.exchanges(search.coalesced(), search.coalesced()) == 2)
        #expect(try await Self.exchanges(search.coalesced(.anyMethod), search.coalesced(.anyMethod)) == 1)
        let other = search.replacing(content: .json(["q": "y"] as Parameters))
        #expect(try await Self.exchanges(search.coalesced(.anyMethod), other.coalesced(.anyMethod)) == 2)
        // Another endpoint definition with the same request does not share.
        let twin = Endpoint<RawResponse>(
            .get("items"), on: Node("twin", baseURL: "https://api.example.com/v1"))
        #expect(try await Self.exchanges(items, twin.coalesced()) == 2)
    }

    /// Sets a user's token in `prepare`; declares it, or not.
    struct UserPlugin: Plugin {
        let token: String
        var declares = true
        func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity {
            declares ? .digest(of: token) : .undeclared
        }
        func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
            var request = request
            request.headerFields[.authorization] = "Bearer \(token)"
            return request
        }
    }

    @Test func callsOfTwoPrincipalsNeverShareAnExchange() async throws {
        let items = Self.endpoint
        // A token added in `prepare`, after coalescing keyed the call: what
        // the plugin declares keeps user B out of user A's exchange.
        #expect(
            try await Self.exchanges(
                items, items, plugins: [[UserPlugin(token: "a")], [UserPlugin(token: "b")]]) == 2)
        #expect(
            try await Self.exchanges(
                items, items, plugins: [[UserPlugin(token: "a")], [UserPlugin(token: "a")]]) == 1)
        // A plugin that does not say whose token it adds: never shared.
        let undeclared = UserPlugin(token: "a", declares: false)
        #expect(try await Self.exchanges(items, items, plugins: [[undeclared], [undeclared]]) == 2)
        // Per-attempt interceptors, the same way.
        let bearer = items.attempting([.bearer { "a" }])
        #expect(try await Self.exchanges(bearer, bearer) == 1)
        let passing = ClosureInterceptor { request, _, next in try await next(request) }
        let closure = items.attempting([passing])
        #expect(try await Self.exchanges(closure, closure) == 2)
        let quiet = items.attempting([passing.declaring(.none)])
        #expect(try await Self.exchanges(quiet, quiet) == 1)
    }

    @Test func eachPrincipalGetsItsOwnResponse() async throws {
        let transport = HeldTransport()
        let client = APIClient(transport: transport)
        let alice = Self.start(client, plugins: [UserPlugin(token: "a")])
        let bob = Self.start(client, plugins: [UserPlugin(token: "b")])
        await transport.waitForArrivals(2)
        let tokens = transport.heldHeaders.map { $0[.authorization] }
        #expect(Set(tokens) == ["Bearer a", "Bearer b"])
        transport.answer("/v1/items", with: .json(#"{"who":"first"}"#))
        transport.answer("/v1/items", with: .json(#"{"who":"second"}"#))
        let bodies = [try await alice.value.get(), try await bob.value.get()].map {
            String(decoding: $0.model.body.bytes ?? [], as: UTF8.self)
        }
        #expect(Set(bodies).count == 2)
    }

    @Test func requestKeysNormaliseTheURLAndHideTheCredential() throws {
        func key(
            _ path: String, _ fields: HTTPFields = [:], body: RequestBody? = nil,
            authority: String = "API.example.com:443"
        )
            -> RequestKey?
        {
            RequestKey(
                OutgoingRequest(
                    head: HTTPRequest(
                        method: .get, scheme: "HTTPS", authority: authority, path: path, headerFields: fields),
                    body: body), credentials: .standard)
        }
        let plain = try #require(key("/v1/items?b=2&a=1&b=1"))
        #expect(plain.url == "https://api.example.com/v1/items?a=1&b=2&b=1")
        #expect(key("/v1/items?a=1&b=2&b=1", authority: "api.example.com") == plain)
        #expect(key("/v1/items?a=1&b=1&b=2") != plain)
        #expect(plain.bodyDigest == nil && plain.credential == nil)
        let signed = try #require(key("/v1/items", [.authorization: "Bearer secret-token"]))
        #expect(signed.credential?.count == 64)
        #expect(!signed.description.contains("secret"))
        #expect(key("/v1/items", [.authorization: "Bearer other"])?.credential != signed.credential)
        let body = try #require(key("/v1/items", body: RequestBody(bytes: Array("abc".utf8))))
        #expect(body.bodyDigest == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(key("/v1/items", [.accept: "text/csv"]) != key("/v1/items", [.accept: "application/json"]))
        #expect(plain.digest.count == 64)
        #expect(plain.digest == key("/v1/items?a=1&b=2&b=1")?.digest)
    }
}

extension Endpoint {
    /// A copy with these per-attempt interceptors.
    fileprivate func attempting(_ interceptors: [any Interceptor]) -> Endpoint {
        var copy = self
        copy.spec.attemptInterceptors = interceptors
        return copy
    }
}
