import CourierAsyncHTTPClient
import CourierAuthentication
import CourierCodable
@_spi(Locking) import CourierCore
import CourierCurl
import CourierMockServer
import CourierTLS
import CourierTesting
import CourierWebSocket
import Foundation
import HTTPTypes
import Testing

/// The WebSocket suites' transport: connecting may take as long as a hang
/// guard allows. Under ThreadSanitizer, beside suites that decode 64 MiB
/// bombs on the same event loops, a loopback connect has taken more than
/// the default 10 s; a refused connection still fails at once.
let hangGuarded = AsyncHTTPClientTransport.Configuration(connectTimeout: .seconds(600))

/// The transports that open WebSocket connections, one column each.
enum WebSocketColumn: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case asyncHTTPClient, curl

    var testDescription: String { rawValue }

    /// Whether this run must have libcurl's WebSockets (scripts/check-newer-libcurl
    /// sets it, with a libcurl that has them loaded).
    static var curlRequired: Bool {
        ProcessInfo.processInfo.environment["COURIER_EXPECT_CURL_WEBSOCKETS"] == "1"
    }

    /// Runs `body` with a client over this column's transport (`configure`d).
    /// A libcurl without WebSockets (Debian 12's 7.88) is proven to say so
    /// instead: the client names the reason before anything is sent, and
    /// opening throws `.webSocketUnsupported` — unless this run requires them.
    func withClient(
        tls: TLSSettings = .system, configure: (inout APIClient.Configuration) -> Void = { _ in },
        _ body: (APIClient) async throws -> Void
    ) async throws {
        switch self {
        case .asyncHTTPClient:
            var guarded = hangGuarded
            guarded.tls = tls
            try await withAsyncHTTPClientTransport(configuration: guarded) { transport in
                var configuration = APIClient.Configuration(transport: transport, decoder: .codable)
                configure(&configuration)
                try await body(APIClient(configuration: configuration))
            }
        case .curl:
            try await withCurlTransport(configuration: .init(connectTimeoutMilliseconds: 600_000, tls: tls)) {
                transport in
                var configuration = APIClient.Configuration(transport: transport, decoder: .codable)
                configure(&configuration)
                let client = APIClient(configuration: configuration)
                let unavailability = client.webSocketUnavailability
                if Self.curlRequired { #expect(unavailability == nil) }
                if let unavailability {
                    #expect(
                        unavailability.contains("libcurl \(CurlFeatures.current.version) was built without"))
                    do {
                        _ = try await client.webSocket(
                            Endpoint<RawResponse>(.get("x"), on: Node("ws", baseURL: "http://127.0.0.1:9")))
                        Issue.record("a WebSocket opened over a libcurl without WebSockets")
                    } catch {
                        #expect((error as? CourierError)?.code == .webSocketUnsupported)
                    }
                    return
                }
                try await body(client)
            }
        }
    }
}

/// WebSocket connections through the pipeline, against courier-mock's
/// scripted conversations: a chat, the authenticator's refresh on a 401
/// handshake, the peer's close code, every limit and fault typed, and a
/// transport that cannot say so. What was said is asserted from the
/// mock's journal of frames.
struct WebSocketContractTests {
    static let stubs = #"""
        {"mappings": [
          {"request": {"urlPath": "/chat"},
           "response": {"webSocket": {"subprotocols": ["chat.v1"],
             "steps": [{"send": {"text": "welcome"}},
                       {"expect": {"text": {"matches": "hello .*"}}, "answer": [{"text": "{\"id\": 7, \"name\": \"ada\"}"}]}],
             "then": "echo"}}},
          {"request": {"urlPath": "/private", "headers": {"Authorization": {"equalTo": "Bearer fresh"}}},
           "priority": 1, "response": {"webSocket": {"steps": [{"send": {"text": "signed in"}}], "then": "hold"}}},
          {"request": {"urlPath": "/private"}, "priority": 5, "response": {"status": 401}},
          {"request": {"urlPath": "/kicked"},
           "response": {"webSocket": {"steps": [{"close": {"code": 4001, "reason": "kicked"}}]}}},
          {"request": {"urlPath": "/huge"},
           "response": {"webSocket": {"steps": [{"fault": {"name": "oversizedFrame", "bytes": 4096}}], "then": "hold"}}},
          {"request": {"urlPath": "/garbled"},
           "response": {"webSocket": {"steps": [{"fault": "invalidUTF8"}], "then": "hold"}}},
          {"request": {"urlPath": "/dropped"},
           "response": {"webSocket": {"steps": [{"expect": {"text": "go"}}, {"fault": {"name": "dropMidFrame", "bytes": 300}}]}}},
          {"request": {"urlPath": "/silent"},
           "response": {"webSocket": {"steps": [{"fault": "noPong"}], "then": "hold"}}},
          {"request": {"urlPath": "/flaky"}, "scenarioName": "flaky", "requiredScenarioState": "Started",
           "newScenarioState": "restarted",
           "response": {"webSocket": {"steps": [{"send": {"text": "one"}}, {"close": {"code": 1012, "reason": "restart"}}]}}},
          {"request": {"urlPath": "/flaky"}, "scenarioName": "flaky", "requiredScenarioState": "restarted",
           "response": {"webSocket": {"steps": [{"expect": {"text": "after one"}, "answer": [{"text": "two"}]}], "then": "hold"}}},
          {"request": {"urlPath": "/gone"}, "scenarioName": "gone", "requiredScenarioState": "Started",
           "newScenarioState": "down",
           "response": {"webSocket": {"steps": [{"send": {"text": "last words"}}, {"expect": {"text": "heard"}},
                                                {"fault": {"name": "dropMidFrame", "bytes": 10}}]}}},
          {"request": {"urlPath": "/gone"}, "scenarioName": "gone", "requiredScenarioState": "down",
           "response": {"status": 503}},
          {"request": {"urlPath": "/parting"},
           "response": {"webSocket": {"steps": [{"send": {"text": "goodbye"}}, {"fault": {"name": "dropMidFrame", "bytes": 10}}]}}}
        ]}
        """#

    struct User: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    static let node = Node("ws", baseURL: "http://127.0.0.1")

    static func withServer(
        _ column: WebSocketColumn, clock: (any CourierClock)? = nil,
        _ body: @Sendable (APIClient, MockServer) async throws -> Void
    ) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<websocket>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            try await column.withClient(configure: { configuration in
                if let clock { configuration.clock = clock }
            }) { client in
                try await body(client, server)
            }
        }
    }

    static func endpoint(_ path: String, _ server: MockServer) -> Endpoint<RawResponse> {
        Endpoint(.get(RoutePath(escaped: path)), on: Node("ws", baseURL: server.baseURL))
    }

    static func frames(_ server: MockServer, _ path: String) -> [WebSocketFrameRecord] {
        server.journal.entries.last { $0.request.path == path }?.webSocketFrames ?? []
    }

    @Test(arguments: WebSocketColumn.allCases) func aChatThroughThePipeline(_ column: WebSocketColumn)
        async throws
    {
        try await Self.withServer(column) { client, server in
            // Every frame is read back from the journal below, however loaded
            // the machine: no keepalive pings among them, and the client waits
            // for the server's close (a close timeout is a hang guard here).
            let socket = try await client.webSocket(
                Self.endpoint("/chat", server),
                options: .init(pingInterval: nil, closeTimeout: .seconds(600), subprotocols: ["chat.v1"]))
            #expect(socket.response.status.code == 101)
            #expect(socket.subprotocol == "chat.v1")
            var messages = socket.messages.makeAsyncIterator()
            #expect(try await messages.next() == .text("welcome"))
            try await socket.send(text: "hello there")
            var users = socket.messages(as: User.self).makeAsyncIterator()
            #expect(try await users.next() == User(id: 7, name: "ada"))
            try await socket.send(.binary([1, 2, 3]))
            #expect(try await messages.next() == .binary([1, 2, 3]))  // echoed
            await socket.close()
            #expect(try await messages.next() == nil)
            let seen = Self.frames(server, "/chat")
            #expect(seen.map(\.direction) == ["out", "in", "out", "in", "out", "in", "out"])
            #expect(seen.filter { $0.direction == "in" }.map(\.opcode) == ["text", "binary", "close"])
            #expect(seen.last?.closeCode == 1000)
        }
    }

    /// A connection nobody holds any more is closed with 1001 (going away),
    /// not left open until the server gives up.
    @Test(arguments: WebSocketColumn.allCases) func droppingTheLastReferenceClosesTheConnection(
        _ column: WebSocketColumn
    ) async throws {
        try await Self.withServer(column) { client, server in
            do {
                let socket = try await client.webSocket(Self.endpoint("/chat", server))
                var messages = socket.messages.makeAsyncIterator()
                #expect(try await messages.next() == .text("welcome"))
            }
            try await waitUntil("the dropped connection's close reached the server") {
                Self.frames(server, "/chat").contains { $0.direction == "in" && $0.closeCode == 1001 }
            }
        }
    }

    /// A 401 on the handshake refreshes the credential once and opens again.
    @Test(arguments: WebSocketColumn.allCases)
    func theAuthenticatorSignsAndRefreshesTheHandshake(_ column: WebSocketColumn) async throws {
        final class Refreshes: Sendable {
            let count = Locked(0)
            func increment() -> Int {
                count.withLock {
                    $0 += 1
                    return $0
                }
            }
            var value: Int { count.withLock { $0 } }
        }
        struct Provider: CredentialProvider {
            let refreshes = Refreshes()
            func apply(_ token: String, to request: inout HTTPRequest) {
                request.headerFields[.authorization] = "Bearer \(token)"
            }
            func refresh(_ token: String, through client: APIClient) async throws -> String {
                _ = refreshes.increment()
                return "fresh"
            }
        }
        let provider = Provider()
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<websocket>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let node = Node("ws", baseURL: server.baseURL)
            let opened = Locked(false)
            try await column.withClient(configure: { configuration in
                configuration.callInterceptors = [Authenticator(provider, for: [node], credential: "stale")]
            }) { client in
                let socket = try await client.webSocket(Endpoint<RawResponse>(.get("private"), on: node))
                var messages = socket.messages.makeAsyncIterator()
                #expect(try await messages.next() == .text("signed in"))
                await socket.close()
                opened.withLock { $0 = true }
            }
            guard opened.withLock({ $0 }) else { return }  // a libcurl without WebSockets said so
            #expect(provider.refreshes.value == 1)
            let attempts = server.journal.entries.filter { $0.request.path == "/private" }
            #expect(attempts.map(\.status) == [401, 101])
            #expect(attempts.map { $0.request.header("Authorization") } == ["Bearer stale", "Bearer fresh"])
        }
    }

    @Test(arguments: WebSocketColumn.allCases) func thePeersCloseCodeEndsTheMessagesWithAnError(
        _ column: WebSocketColumn
    ) async throws {
        try await Self.withServer(column) { client, server in
            let socket = try await client.webSocket(Self.endpoint("/kicked", server))
            let failure = await Self.failure(of: socket)
            #expect(failure?.kind == .closedByPeer)
            #expect(failure?.close == WebSocketClose(code: 4001, reason: "kicked"))
            #expect(socket.peerClose?.code == 4001)
            // The client answered the close with the same code.
            try await waitUntil("the client's close reached the server") {
                Self.frames(server, "/kicked").contains { $0.direction == "in" && $0.closeCode == 4001 }
            }
        }
    }

    @Test(arguments: WebSocketColumn.allCases) func eachLimitAndFaultIsTyped(_ column: WebSocketColumn)
        async throws
    {
        try await Self.withServer(column) { client, server in
            let huge = try await client.webSocket(
                Self.endpoint("/huge", server), options: .init(maxMessageSize: 1_024))
            #expect(await Self.failure(of: huge)?.kind == .messageTooLarge)
            try await waitUntil("the client's close (1009) reached the server") {
                Self.frames(server, "/huge").contains { $0.direction == "in" && $0.closeCode == 1009 }
            }
            let garbled = try await client.webSocket(Self.endpoint("/garbled", server))
            #expect(await Self.failure(of: garbled)?.kind == .invalidUTF8)
            try await waitUntil("the client's close (1007) reached the server") {
                Self.frames(server, "/garbled").contains { $0.direction == "in" && $0.closeCode == 1007 }
            }
            let dropped = try await client.webSocket(Self.endpoint("/dropped", server))
            try await dropped.send(text: "go")
            #expect(await Self.failure(of: dropped)?.kind == .closedAbnormally)
            do {
                try await dropped.send(text: "after")
                Issue.record("a send after the end succeeded")
            } catch {
                #expect(((error as? CourierError)?.underlying as? WebSocketFailure)?.kind == .alreadyClosed)
            }
        }
    }

    /// A server that says one thing and drops the connection at once, in
    /// the same breath as its `101`: the connection still opens, the message
    /// is read, then the drop (not a failed handshake, not a hang).
    @Test(arguments: WebSocketColumn.allCases)
    func aMessageAndADropRightAfterTheUpgradeAreBothSeen(_ column: WebSocketColumn) async throws {
        try await Self.withServer(column) { client, server in
            let socket = try await client.webSocket(
                Self.endpoint("/parting", server), options: .init(pingInterval: nil))
            var messages = socket.messages.makeAsyncIterator()
            #expect(try await messages.next() == .text("goodbye"))
            #expect(await Self.failure(of: socket)?.kind == .closedAbnormally)
        }
    }

    /// A ping the server does not answer: after the pong timeout (on the
    /// client's clock) the connection is dropped and the reader told.
    @Test(arguments: WebSocketColumn.allCases) func anUnansweredPingTimesOut(_ column: WebSocketColumn)
        async throws
    {
        let clock = TestClock(mode: .manual)
        try await Self.withServer(column, clock: clock) { client, server in
            let socket = try await client.webSocket(
                Self.endpoint("/silent", server), options: .init(pingInterval: nil, pongTimeout: .seconds(5)))
            let ping = Task { () -> WebSocketFailure? in
                do {
                    try await socket.ping()
                    return nil
                } catch {
                    return (error as? CourierError)?.underlying as? WebSocketFailure
                }
            }
            try await waitUntil("the ping waits for its pong") {
                clock.sleeperCount >= 1 && Self.frames(server, "/silent").contains { $0.opcode == "ping" }
            }
            clock.advance(by: .seconds(5))
            #expect(await ping.value?.kind == .pongTimeout)
            #expect(await Self.failure(of: socket)?.kind == .pongTimeout)
        }
    }

    /// A connection the server restarts (1012) is opened again after the
    /// policy's backoff on the client's clock, through the pipeline; the
    /// resume hook says where the app left off before messages are read,
    /// and the messages go on in the same sequence.
    @Test(arguments: WebSocketColumn.allCases)
    func aLostConnectionIsRestoredAndResumed(_ column: WebSocketColumn) async throws {
        let clock = TestClock(mode: .manual)
        try await Self.withServer(column, clock: clock) { client, server in
            let reconnection = WebSocketReconnection(policy: .delays(maxAttempts: 3) { _ in .seconds(2) }) {
                socket in try await socket.send(text: "after one")
            }
            let socket = try await client.webSocket(
                Self.endpoint("/flaky", server), options: .init(pingInterval: nil, reconnection: reconnection)
            )
            var messages = socket.messages.makeAsyncIterator()
            #expect(try await messages.next() == .text("one"))
            let next = Task {
                var rest = socket.messages.makeAsyncIterator()
                return try await rest.next()
            }
            let handshakes = { server.journal.entries.filter { $0.request.path == "/flaky" } }
            try await waitUntil("the reconnect waits for its backoff") { clock.sleeperCount >= 1 }
            #expect(handshakes().count == 1)
            clock.advance(by: .seconds(2))
            #expect(try await next.value == .text("two"))
            #expect(socket.reconnections == 1)
            #expect(handshakes().map(\.status) == [101, 101])
            #expect(Self.frames(server, "/flaky").first { $0.direction == "in" }?.text == "after one")
            await socket.close()
        }
    }

    /// A connection dropped, then a server that refuses every handshake:
    /// the policy's attempts run out and the messages end with the last
    /// refusal; a later send fails instead of waiting.
    @Test(arguments: WebSocketColumn.allCases)
    func reconnectingEndsWhenThePolicySays(_ column: WebSocketColumn) async throws {
        try await Self.withServer(column) { client, server in
            let reconnection = WebSocketReconnection(policy: .delays(maxAttempts: 3) { _ in .zero })
            let socket = try await client.webSocket(
                Self.endpoint("/gone", server), options: .init(pingInterval: nil, reconnection: reconnection))
            var messages = socket.messages.makeAsyncIterator()
            #expect(try await messages.next() == .text("last words"))
            try await socket.send(text: "heard")
            do {
                _ = try await messages.next()
                Issue.record("the messages went on after the server refused every reconnect")
            } catch {
                let refusal = error as? CourierError
                #expect(refusal?.code == .status)
                #expect(refusal?.response?.head.status.code == 503)
            }
            #expect(
                server.journal.entries.filter { $0.request.path == "/gone" }.map(\.status) == [101, 503, 503])
            #expect(socket.reconnections == 0)
            do {
                try await socket.send(text: "anyone?")
                Issue.record("a send after reconnecting gave up succeeded")
            } catch {
                let code = (error as? CourierError)?.code
                #expect(code == .status || code == .webSocket)
            }
        }
    }

    /// A transport without WebSocket support says so before sending anything.
    @Test func aTransportThatCannotSaysSo() async throws {
        let client = APIClient(configuration: .init(transport: StubTransport.immediate(.status(200))))
        #expect(client.webSocketUnavailability?.contains("StubTransport cannot open WebSocket") == true)
        do {
            _ = try await client.webSocket(Endpoint<RawResponse>(.get("x"), on: Self.node))
            Issue.record("a WebSocket over a stub transport")
        } catch {
            #expect(error.code == .webSocketUnsupported)
        }
    }

    /// How `socket`'s messages ended, as a ``WebSocketFailure``.
    static func failure(of socket: WebSocket) async -> WebSocketFailure? {
        do {
            for try await _ in socket.messages {}
            return nil
        } catch {
            return error.underlying as? WebSocketFailure
        }
    }
}
