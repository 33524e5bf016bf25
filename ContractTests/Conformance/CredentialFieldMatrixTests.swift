import CourierCache
import CourierCacheRedis
import CourierCodable
import CourierCore
import CourierMockServer
import CourierPlugins
import CourierStreamFormats
import CourierTesting
import Foundation
import HTTPTypes
import Logging
import Testing

/// The credential-field axis of the identity matrix: every field of the
/// credential model — the standard ones, one the app declares on its client,
/// one a plugin's redaction hides — × every way a response is shared or
/// sent again × every transport, two principals each. Each principal must
/// get its own answer, the server's record must show each request with its
/// own value in one field, and no stored response may hand out the
/// `Set-Cookie` a credentialed answer carried.
///
/// Where the credential comes from (a plugin, an authenticator, the jar…)
/// is `IdentityMatrixTests`' axis; here it is always the endpoint's own field.
struct CredentialFieldMatrixTests {
    /// A field the app declares on its client (`configuration.credentialFields`).
    static let declaredField = "X-Tenant-Secret"
    /// A field only a plugin's redaction hides: a credential too.
    static let redactedField = "X-Session-Secret"

    /// The credential fields a request can carry, written here and not read
    /// from the model: a name the model lost must fail the matrix, not
    /// leave it (``theModelIsTheListTheMatrixCovers()`` holds the two to each other).
    /// `Proxy-Authorization` is a proxy's and no request carries it (one is
    /// refused before sending: `ProxyTests`).
    static let standardFields = [
        "Authorization", "Cookie", "X-API-Key", "X-Auth-Token", "API-Key", "X-Amz-Security-Token",
    ]

    /// Every standard field, and the two an app adds.
    static let fields = standardFields + [declaredField, redactedField]

    /// A field the model gains joins the matrix: the test's list and the
    /// model's (with `Set-Cookie`, which only a response carries, and
    /// `Proxy-Authorization`, which only a proxy receives) are one.
    @Test func theModelIsTheListTheMatrixCovers() {
        #expect(
            Set(CredentialFields.standard.names.map { $0.canonicalName })
                == Set((Self.standardFields + ["Set-Cookie", "Proxy-Authorization"]).map { $0.lowercased() }))
    }

    enum Sharing: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory, disk, redis, coalescing, stream, retry, replay, staleIfError
        var testDescription: String { rawValue }
        var caches: Bool { [.memory, .disk, .redis, .staleIfError].contains(self) }
    }

    /// A path per field (`/m/x-api-key`), so one server's stubs keep the cells apart.
    static func path(_ field: String) -> String { "/m/\(field.lowercased())" }

    /// The value principal `who` sends in `field`.
    static func value(_ field: String, _ who: String) -> String {
        field.lowercased() == "cookie" ? "sid=\(who)" : "\(who)-secret"
    }

    /// Per field and principal, matched on the principal's own value: the
    /// echo of that value with a `Set-Cookie` of the principal's session
    /// (a 503 first for `retry`, an answer asking for a replay first for
    /// `replay`; a stored-for-stale answer then 500s for `staleIfError`,
    /// where Bob only ever gets a 500).
    static func stubs(_ sharing: Sharing) throws -> [StubMapping] {
        var mappings: [String] = []
        for field in fields {
            for who in ["alice", "bob"] {
                let value = value(field, who)
                let echo =
                    #"{"headers": {"Set-Cookie": "session=\#(who)-session", "Cache-Control": "max-age=600"}, "#
                    + #""jsonBody": {"field": "\#(field)", "value": "\#(value)"}}"#
                let responses: String
                switch sharing {
                case .retry: responses = #"[{"status": 503}, \#(echo)]"#
                case .replay: responses = #"[{"jsonBody": {"again": true}}, \#(echo)]"#
                case .staleIfError:
                    let stale =
                        #"{"headers": {"Set-Cookie": "session=\#(who)-session", "#
                        + #""Cache-Control": "max-age=0, stale-if-error=3600"}, "#
                        + #""jsonBody": {"field": "\#(field)", "value": "\#(value)"}}"#
                    responses = who == "alice" ? #"[\#(stale), {"status": 500}]"# : #"[{"status": 500}]"#
                default: responses = "[\(echo)]"
                }
                mappings.append(
                    #"{"id": "\#(field)-\#(who)", "request": {"urlPath": "\#(path(field))", "#
                        + #""headers": {"\#(field)": {"equalTo": "\#(value)"}}}, "#
                        + #""responses": \#(responses), "exhausted": "repeatLast"}"#)
            }
        }
        return try ContractLoader.parse(
            Array(#"{"mappings": [\#(mappings.joined(separator: ", "))]}"#.utf8), file: "<credential fields>")
    }

    /// What a stub answers: the field and the value it was matched on.
    struct Echo: Decodable, Sendable, Equatable {
        let field: String?
        let value: String?
        let again: Bool?
    }

    /// A client of `transport` that declares ``declaredField`` and logs
    /// through a plugin whose redaction hides ``redactedField``.
    static func client(_ transport: any Transport, _ cache: ResponseCache?) -> APIClient {
        var redaction = Redaction.standard
        if let name = HTTPField.Name(redactedField) { redaction.headers.insert(name) }
        var configuration = APIClient.Configuration(
            transport: transport, decoder: .codable,
            plugins: [LoggingPlugin(logger: Logger(label: "matrix"), redaction: redaction)],
            timeout: hangGuard)
        configuration.credentialFields = CredentialFields.standard.declaring([declaredField])
        if let cache { configuration.cache = cache }
        return APIClient(configuration: configuration)
    }

    static func endpoint(_ field: String, _ who: String, _ node: Node, _ sharing: Sharing) -> Endpoint<Echo> {
        var endpoint = Endpoint<Echo>(
            .get(RoutePath(stringLiteral: String(path(field).dropFirst()))), on: node)
        if let name = HTTPField.Name(field) { endpoint = endpoint.adding(headers: [name: value(field, who)]) }
        switch sharing {
        case .memory, .disk, .redis:
            endpoint = endpoint.cache(.cancelNetwork) { $0.storesCredentialedResponses = true }
        case .staleIfError:
            endpoint = endpoint.cache(.http) { $0.storesCredentialedResponses = true }
        case .coalescing: endpoint = endpoint.coalesced()
        case .retry:
            endpoint.spec.retryPolicy = RetryPolicy(maxAttempts: 2, backoff: .constant(.zero), jitter: .none)
        case .replay:
            endpoint = endpoint.onResponse { result, context in
                if case .success(let echo) = result, echo.again == true, context.replays == 0 {
                    return .retry(after: .zero)
                }
                return .deliver(result)
            }
        case .stream: break
        }
        return endpoint
    }

    @Test(arguments: TransportKind.allCases, Sharing.allCases)
    func noPrincipalIsServedAnothersResponse(kind: TransportKind, sharing: Sharing) async throws {
        let redis = sharing == .redis ? try await RedisTestServer.start() : nil
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fields-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await withMockServer(.init(stubs: try Self.stubs(sharing))) { server async throws in
                let node = Node("mock", baseURL: "http://127.0.0.1:\(server.port)")
                for field in Self.fields {
                    let cache = try await Self.cache(sharing, directory, field, redis)
                    let gate = PairGate(kind.transport)
                    let client = Self.client(sharing == .coalescing ? gate : kind.transport, cache)
                    let before = server.journal.entries.count
                    try await Self.run(
                        sharing, field, client: client, node: node, gate: gate, cache: cache)
                    // The wire: each request carried one principal's value, once, and both came.
                    let carried = server.journal.entries.dropFirst(before).map {
                        $0.request.headerValues(field)
                    }
                    #expect(carried.allSatisfy { $0.count == 1 }, "\(kind) \(sharing) \(field): \(carried)")
                    #expect(
                        Set(carried.joined()) == [Self.value(field, "alice"), Self.value(field, "bob")],
                        "\(kind) \(sharing) \(field): the server saw \(carried)")
                }
            }
        } catch {
            await redis?.stop()
            throw error
        }
        await redis?.stop()
    }

    static func cache(_ sharing: Sharing, _ directory: URL, _ field: String, _ redis: RedisTestServer?)
        async throws -> ResponseCache?
    {
        switch sharing {
        case .memory, .staleIfError: return ResponseCache()
        case .disk:
            return ResponseCache(
                memory: nil,
                disk: try await DiskStore.open(
                    directory: directory.appendingPathComponent(field.lowercased())))
        case .redis:
            guard let redis else { return nil }
            let store = RedisStore(
                .init(
                    endpoint: .tcp(host: "127.0.0.1", port: redis.port),
                    namespace: "matrix-\(field.lowercased())",
                    connectTimeout: hangGuard, commandTimeout: hangGuard))
            return ResponseCache(memory: nil, disk: store)
        default: return nil
        }
    }

    static func run(
        _ sharing: Sharing, _ field: String, client: APIClient, node: Node, gate: PairGate,
        cache: ResponseCache?
    ) async throws {
        let alice = endpoint(field, "alice", node, sharing)
        let bob = endpoint(field, "bob", node, sharing)
        let what = "\(sharing) \(field)"
        func expectOwn(_ reply: Reply<Echo>, _ who: String, _ when: String) {
            #expect(reply.model.value == value(field, who), "\(what) \(who) \(when): got \(reply.model)")
            #expect(
                reply.response?.headerFields[.setCookie].map { $0 == "session=\(who)-session" } ?? true,
                "\(what) \(who) \(when): another's Set-Cookie")
        }
        switch sharing {
        case .memory, .disk, .redis:
            expectOwn(try await client.response(alice), "alice", "first")
            await cache?.settle()
            expectOwn(try await client.response(bob), "bob", "after alice")
            await cache?.settle()
            let again = try await client.response(alice)
            expectOwn(again, "alice", "again")
            #expect(again.attempts == 0, "\(what): alice's second call was not answered from her entry")
            // A stored response never hands out the session it carried.
            #expect(again.response?.headerFields[.setCookie] == nil, "\(what): a stored Set-Cookie")
        case .staleIfError:
            expectOwn(try await client.response(alice), "alice", "first")
            await cache?.settle()
            // Bob's request fails: alice's stale entry is not his.
            let error = await #expect(throws: CourierError.self, "\(what): bob got a stale answer") {
                try await client.response(bob)
            }
            #expect(error?.response?.statusCode == 500, "\(what): \(String(describing: error))")
            let stale = try await client.response(alice)
            expectOwn(stale, "alice", "stale")
            #expect(stale.response?.headerFields[.setCookie] == nil, "\(what): a stored Set-Cookie")
        case .coalescing:
            async let first = client.response(alice)
            async let second = client.response(bob)
            try await waitUntil { gate.pairArrived || client.coalescedCalls >= 2 }
            gate.open()
            let (aliceReply, bobReply) = (try await first, try await second)
            #expect(gate.pairArrived, "\(what): one request reached the transport — bob joined alice's")
            expectOwn(aliceReply, "alice", "coalesced")
            expectOwn(bobReply, "bob", "coalesced")
        case .stream:
            async let first = stream(client, alice)
            async let second = stream(client, bob)
            let (aliceEcho, bobEcho) = (try await first, try await second)
            #expect(aliceEcho.value == value(field, "alice"), "\(what): alice's stream \(aliceEcho)")
            #expect(bobEcho.value == value(field, "bob"), "\(what): bob's stream \(bobEcho)")
        case .retry:
            for who in ["alice", "bob"] {
                let reply = try await client.response(who == "alice" ? alice : bob)
                expectOwn(reply, who, "after a retry")
                #expect(reply.attempts == 2, "\(what): \(reply.attempts) attempts")
            }
        case .replay:
            async let first = client.response(alice)
            async let second = client.response(bob)
            expectOwn(try await first, "alice", "after a replay")
            expectOwn(try await second, "bob", "after a replay")
        }
    }

    /// The echo, through `client.stream`.
    static func stream(_ client: APIClient, _ endpoint: Endpoint<Echo>) async throws -> Echo {
        let reply = try await client.stream(endpoint)
        var bytes: [UInt8] = []
        for try await chunk in reply.body { bytes += chunk }
        return try JSONDecoder().decode(Echo.self, from: Data(bytes))
    }
}
