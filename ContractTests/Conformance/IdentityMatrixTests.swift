import CourierAuthentication
import CourierCache
import CourierCodable
import CourierCookies
import CourierCore
import CourierMockServer
import CourierPlugins
import CourierStreamFormats
import CourierTesting
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import Testing

/// One request identity: every place a credential can come from × every way
/// a response is shared × every transport, two principals each. Each
/// principal must get the echo of its own request, and the server's record
/// must show each request carrying its own credential in one field. A new
/// credential source or a new way of sharing joins the matrix here.
struct IdentityMatrixTests {
    /// Where the credential comes from.
    enum Source: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case endpointHeader, callInterceptor, attemptInterceptor, clientPlugin, callPlugin, authenticator
        case cookieJar
        /// A `ChallengeAuthenticator` answering the server's Basic challenge
        /// (the challenge exchanges carry no credential, and are left out
        /// of the wire check).
        case challengeAuthenticator

        var testDescription: String { rawValue }

        /// Set on the client (one client per principal), not per call.
        var isClientWide: Bool { self == .clientPlugin || self == .cookieJar }
    }

    /// How a response could be shared between the two principals.
    enum Sharing: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memoryTier, diskTier, coalescing
        /// Not sharing, but the place a credential could be lost or swapped:
        /// the first attempt gets a 503, the retry must carry the same one.
        case retry
        /// Not sharing either: two principals' streaming calls at once, each
        /// body read to its end.
        case stream
        /// A token-refresh replay: each principal's call also carries a
        /// session an `Authenticator` refreshes on a 401; both principals at
        /// once, and the replay must carry the same principal's credential.
        case refresh

        var testDescription: String { rawValue }
    }

    /// The mock server's `/anything` echo: the header lines it received.
    struct Echo: Decodable, Sendable {
        let headers: [[String]]

        func values(_ name: String) -> [String] {
            headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
        }
    }

    /// A credential provider with a fixed token.
    struct FixedTokens: CredentialProvider {
        func apply(_ credential: String, to request: inout HTTPRequest) throws {
            request.headerFields[.authorization] = "Bearer \(credential)"
        }
        func refresh(_ credential: String, through client: APIClient) async throws -> String {
            credential
        }
    }

    /// A session in `X-Session`, `old-…` until refreshed to `new-…`: the
    /// refresh column's second credential, beside the source's.
    struct Sessions: CredentialProvider {
        func apply(_ credential: String, to request: inout HTTPRequest) throws {
            request.headerFields[HTTPField.Name("X-Session") ?? .authorization] = credential
        }
        func refresh(_ credential: String, through client: APIClient) async throws -> String {
            credential.replacingOccurrences(of: "old-", with: "new-")
        }
    }

    /// One principal's way of calling.
    struct Caller {
        let client: APIClient
        let endpoint: Endpoint<Echo>
        let plugins: [any Plugin]
        /// The field that must carry the principal's credential, and its value.
        let field: String
        let value: String

        func call() async throws -> Reply<Echo> { try await client.response(endpoint, plugins: plugins) }

        /// This caller with a session of its own, refreshed on a 401.
        func refreshing(_ principal: String) -> Caller {
            var endpoint = endpoint
            endpoint.spec.callInterceptors.append(
                Authenticator(Sessions(), for: [endpoint.spec.node], credential: "old-\(principal)"))
            return Caller(client: client, endpoint: endpoint, plugins: plugins, field: field, value: value)
        }

        /// The echo, through `client.stream`.
        func stream() async throws -> Echo {
            let reply = try await client.stream(endpoint, plugins: plugins)
            var bytes: [UInt8] = []
            for try await chunk in reply.body { bytes += chunk }
            return try JSONDecoder().decode(Echo.self, from: Data(bytes))
        }
    }

    static func configuration(_ transport: any Transport, _ cache: ResponseCache?) -> APIClient.Configuration
    {
        var configuration = APIClient.Configuration(
            transport: transport, decoder: .codable, timeout: hangGuard)
        if let cache { configuration.cache = cache }
        return configuration
    }

    /// `principal`'s caller for `source`; per-call sources share `shared`.
    static func caller(
        _ source: Source, _ principal: String, _ base: Endpoint<Echo>, server: MockServer,
        shared: APIClient, transport: any Transport, cache: ResponseCache?
    ) -> Caller {
        let token = "tok-\(principal)"
        var endpoint = base
        var plugins: [any Plugin] = []
        var client = shared
        switch source {
        case .endpointHeader:
            endpoint = endpoint.adding(headers: [.authorization: "Bearer \(token)"])
        case .callInterceptor:
            endpoint.spec.callInterceptors = [.bearer { token }]
        case .attemptInterceptor:
            endpoint.spec.attemptInterceptors = [.bearer { token }]
        case .callPlugin:
            plugins = [AccessTokenPlugin { _, _ in token }]
        case .authenticator:
            endpoint.spec.callInterceptors = [
                Authenticator(FixedTokens(), for: [endpoint.spec.node], credential: token)
            ]
        case .challengeAuthenticator:
            endpoint.spec.attemptInterceptors = [
                ChallengeAuthenticator(
                    user: principal, password: "pw-\(principal)", for: [endpoint.spec.node],
                    allowsBasicOverPlainHTTP: true)
            ]
        case .clientPlugin:
            var configuration = configuration(transport, cache)
            configuration.plugins = [AccessTokenPlugin { _, _ in token }]
            client = APIClient(configuration: configuration)
        case .cookieJar:
            let jar = CookieJar()
            if let origin = URL(string: "http://127.0.0.1:\(server.port)/") {
                _ = jar.setCookie("sid=\(token); Path=/", from: origin)
            }
            var configuration = configuration(transport, cache)
            configuration.cookies = jar
            client = APIClient(configuration: configuration)
        }
        let (field, value) = credential(source, principal)
        return Caller(client: client, endpoint: endpoint, plugins: plugins, field: field, value: value)
    }

    /// What the principal got is its own: the echo shows its credential,
    /// once, in one field.
    static func expectOwn(_ reply: Reply<Echo>, _ caller: Caller, _ what: String) {
        expectOwn(reply.model, caller, what)
    }

    static func expectOwn(_ echo: Echo, _ caller: Caller, _ what: String) {
        let values = echo.values(caller.field)
        #expect(values == [caller.value], "\(what): \(caller.field) echoed \(values), not \(caller.value)")
    }

    /// The field that carries `principal`'s credential from `source`, and its value.
    static func credential(_ source: Source, _ principal: String) -> (field: String, value: String) {
        switch source {
        case .cookieJar: ("Cookie", "sid=tok-\(principal)")
        case .challengeAuthenticator:
            ("Authorization", "Basic " + Data("\(principal):pw-\(principal)".utf8).base64EncodedString())
        default: ("Authorization", "Bearer tok-\(principal)")
        }
    }

    /// For `.challengeAuthenticator`: a Basic challenge to its requests
    /// that carry no credential yet, on every path of the source.
    static let challengeStub =
        #"{"id": "challenge", "request": {"urlPathPattern": "/[a-z]+/challengeAuthenticator", "#
        + #""headers": {"Authorization": {"absent": true}}}, "response": {"status": 401, "#
        + #""headers": {"WWW-Authenticate": "Basic realm=\"matrix\""}}}"#

    /// For `.retry`: per source and principal, a 503, then the echo of the
    /// principal's credential — matched on that credential, so a retry that
    /// carried another principal's would get the other's answer.
    static func retryStubs() throws -> [StubMapping] {
        var mappings: [String] = []
        for source in Source.allCases {
            for principal in ["alice", "bob"] {
                let (field, value) = credential(source, principal)
                mappings.append(
                    #"{"id": "retry-\#(source)-\#(principal)", "request": {"urlPath": "/retry/\#(source)", "#
                        + #""headers": {"\#(field)": {"equalTo": "\#(value)"}}}, "responses": [{"status": 503}, "#
                        + #"{"jsonBody": {"headers": [["\#(field)", "\#(value)"]]}}], "exhausted": "repeatLast"}"#
                )
            }
        }
        mappings += refreshStubs()
        mappings.append(challengeStub)
        return try ContractLoader.parse(
            Array(#"{"mappings": [\#(mappings.joined(separator: ", "))]}"#.utf8), file: "<retry and refresh>")
    }

    /// For `.refresh`: per source and principal, a 401 to the old session
    /// and the echo of the principal's credential to the new one — both
    /// matched on the principal's credential too.
    static func refreshStubs() -> [String] {
        var mappings: [String] = []
        for source in Source.allCases {
            for principal in ["alice", "bob"] {
                let (field, value) = credential(source, principal)
                let request = { (session: String) in
                    #"{"urlPath": "/refresh/\#(source)", "headers": {"\#(field)": {"equalTo": "\#(value)"}, "#
                        + #""X-Session": {"equalTo": "\#(session)-\#(principal)"}}}"#
                }
                mappings.append(
                    #"{"id": "expired-\#(source)-\#(principal)", "request": \#(request("old")), "#
                        + #""response": {"status": 401}}"#)
                mappings.append(
                    #"{"id": "refreshed-\#(source)-\#(principal)", "request": \#(request("new")), "#
                        + #""response": {"jsonBody": {"headers": [["\#(field)", "\#(value)"]]}}}"#)
            }
        }
        return mappings
    }

    @Test(arguments: TransportKind.allCases, Sharing.allCases)
    func noPrincipalIsServedAnothersResponse(kind: TransportKind, sharing: Sharing) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("identity-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withMockServer(.init(stubs: try Self.retryStubs())) { server async throws in
            for source in Source.allCases {
                let cache: ResponseCache?
                var base = Endpoint<Echo>(
                    .get("anything/\(source.rawValue)"),
                    on: Node("mock", baseURL: "http://127.0.0.1:\(server.port)"))
                switch sharing {
                case .memoryTier:
                    cache = ResponseCache()
                case .diskTier:
                    let store = try await DiskStore.open(
                        directory: directory.appendingPathComponent(source.rawValue))
                    cache = ResponseCache(memory: nil, disk: store)
                case .coalescing:
                    cache = nil
                    base = base.coalesced()
                case .stream:
                    cache = nil
                case .refresh:
                    cache = nil
                    base = Endpoint<Echo>(.get("refresh/\(source.rawValue)"), on: base.spec.node)
                case .retry:
                    cache = nil
                    base = Endpoint<Echo>(.get("retry/\(source.rawValue)"), on: base.spec.node)
                    base.spec.retryPolicy = RetryPolicy(
                        maxAttempts: 2, backoff: .constant(.zero), jitter: .none)
                }
                if cache != nil {
                    base = base.cache(.cancelNetwork) { $0.storesCredentialedResponses = true }
                }
                let gate = PairGate(kind.transport)
                let transport: any Transport = sharing == .coalescing ? gate : kind.transport
                let shared = APIClient(configuration: Self.configuration(transport, cache))
                let (plainAlice, plainBob) = (
                    Self.caller(
                        source, "alice", base, server: server, shared: shared, transport: transport,
                        cache: cache),
                    Self.caller(
                        source, "bob", base, server: server, shared: shared, transport: transport,
                        cache: cache)
                )
                let (alice, bob) =
                    sharing == .refresh
                    ? (plainAlice.refreshing("alice"), plainBob.refreshing("bob")) : (plainAlice, plainBob)
                let before = server.journal.entries.count
                if sharing == .coalescing {
                    try await Self.concurrently(alice, bob, gate: gate, source: source)
                } else if sharing == .stream {
                    async let first = alice.stream()
                    async let second = bob.stream()
                    let (aliceEcho, bobEcho) = (try await first, try await second)
                    Self.expectOwn(aliceEcho, alice, "\(source) alice's stream")
                    Self.expectOwn(bobEcho, bob, "\(source) bob's stream")
                } else if sharing == .refresh {
                    async let first = alice.call()
                    async let second = bob.call()
                    let (aliceReply, bobReply) = (try await first, try await second)
                    Self.expectOwn(aliceReply, alice, "\(source) alice after a refresh")
                    Self.expectOwn(bobReply, bob, "\(source) bob after a refresh")
                    // Each principal: the 401, then the replay with the refreshed session.
                    let answered = server.journal.entries.dropFirst(before).compactMap(\.stubID)
                    for principal in ["alice", "bob"] {
                        let own = answered.filter { $0.hasSuffix("-\(source)-\(principal)") }
                        #expect(
                            own == ["expired-\(source)-\(principal)", "refreshed-\(source)-\(principal)"],
                            "\(source) \(principal): answered by \(own)")
                    }
                } else if sharing == .retry {
                    for caller in [alice, bob] {
                        let reply = try await caller.call()
                        Self.expectOwn(reply, caller, "\(source) \(caller.value) after a retry")
                        #expect(reply.attempts == 2, "\(source): \(reply.attempts) attempts")
                    }
                } else {
                    Self.expectOwn(try await alice.call(), alice, "\(source) alice")
                    await cache?.settle()
                    Self.expectOwn(try await bob.call(), bob, "\(source) bob after alice")
                    await cache?.settle()
                    // Each principal's own entry answers it again, without the network.
                    let again = try await alice.call()
                    Self.expectOwn(again, alice, "\(source) alice again")
                    #expect(
                        again.attempts == 0, "\(source): alice's second call was not answered from her entry")
                }
                // The wire, from the server's record: each request carried
                // one principal's credential, in one field.
                let sent = server.journal.entries.dropFirst(before).filter { $0.stubID != "challenge" }.map(
                    \.request)
                let carried = sent.map { request in request.headerValues(alice.field) }
                #expect(
                    carried.allSatisfy { $0.count == 1 },
                    "\(source): \(alice.field) lines on the wire: \(carried)")
                #expect(
                    Set(carried.joined()) == [alice.value, bob.value],
                    "\(source): the server saw \(carried), not both principals")
            }
        }
    }

    /// Alice's and Bob's calls at once, the first request held at the
    /// transport until the second arrives there: had Bob joined Alice's
    /// exchange, his request would never come, and the gate opens only at
    /// its safety deadline (a hang guard, never met when the code is right).
    static func concurrently(
        _ alice: Caller, _ bob: Caller, gate: PairGate, source: Source
    ) async throws {
        async let first = alice.call()
        async let second = bob.call()
        // The gate opens when Bob's request reaches the transport too — or
        // when both callers wait on one exchange: Bob joined Alice's, the
        // failure this looks for. (No clock: it re-checks as other tasks run.)
        try await waitUntil { gate.pairArrived || alice.client.coalescedCalls >= 2 }
        gate.open()
        let (aliceReply, bobReply) = (try await first, try await second)
        #expect(
            gate.pairArrived, "\(source): one request reached the transport — bob joined alice's exchange")
        expectOwn(aliceReply, alice, "\(source) alice")
        expectOwn(bobReply, bob, "\(source) bob")
    }
}

/// A transport that holds the first request it is given until a second
/// one comes or the test opens it (both then go on to `inner`), so that two
/// calls are surely in flight together.
final class PairGate: Transport {
    private struct State {
        var arrived = 0
        var waiting: CheckedContinuation<Void, Never>?
        var open = false
    }

    let inner: any Transport
    // NIOLockedValueBox, not Synchronization's Mutex: ThreadSanitizer does not
    // see the ordering Mutex's futex gives (a false report under check-tsan).
    private let state = NIOLockedValueBox(State())

    init(_ inner: any Transport) { self.inner = inner }

    /// Whether a second request came while the first was held.
    var pairArrived: Bool { state.withLockedValue { $0.arrived >= 2 } }

    func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        let first = state.withLockedValue { state in
            state.arrived += 1
            return state.arrived == 1
        }
        if first {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isOpen = state.withLockedValue { state in
                    if !state.open { state.waiting = continuation }
                    return state.open
                }
                if isOpen { continuation.resume() }
            }
        } else {
            open()
        }
        return try await inner.send(request, options: options)
    }

    /// Lets the held request go, and every later one straight through.
    func open() {
        let waiting = state.withLockedValue { state in
            state.open = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }
}
