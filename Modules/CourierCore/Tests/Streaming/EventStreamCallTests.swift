import CourierAuthentication
@_spi(Locking) import CourierCore
import CourierStreamFormats
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// `client.events(_:)`: one sequence of server-sent events across
/// reconnects, as the retry policy allows.
struct EventStreamCallTests {
    static let lastEventID = HTTPField.Name("Last-Event-ID") ?? .accept

    static func collect(_ events: ServerSentEventStream) async throws -> [ServerSentEvent] {
        var seen: [ServerSentEvent] = []
        for try await event in events { seen.append(event) }
        return seen
    }

    @Test func aDroppedStreamResumesFromTheLastEventIDWithTheServersRetryTime() async throws {
        let transport = ScriptedStreamTransport { _, number in
            switch number {
            case 1:
                .stream(
                    .eventStream,
                    [.text("retry: 250\nid: 1\ndata: a\n\nid: 2\ndata: b\n\nid: 3\ndata: half"), .drop])
            case 2: .stream(.eventStream, [.text("id: 3\ndata: c\n\n")])
            default: .stream(HTTPResponse(status: .noContent), [])
            }
        }
        let clock = TestClock()
        let recorder = StreamRecorder()
        let client = makeClient(transport, clock: clock, plugins: [recorder])
        let events = try await Self.collect(client.events(Endpoint.feed.retrying(.standard)))
        // One continuous sequence: the half-sent event is not delivered twice or at all from the drop,
        #expect(events.map(\.lastEventID) == ["1", "2", "3"])
        #expect(events.map(\.data) == ["a", "b", "c"])
        // each reconnect said where it left off and waited the server's 250 ms,
        let connections = transport.connections
        #expect(connections.count == 3)
        #expect(connections[0].head.headerFields[Self.lastEventID] == nil)
        #expect(connections[1].head.headerFields[Self.lastEventID] == "2")
        #expect(connections[2].head.headerFields[Self.lastEventID] == "3")
        #expect(connections.allSatisfy { $0.head.headerFields[.accept] == "text/event-stream" })
        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(250)])
        // and plugins saw every connection but one end, with the counts.
        #expect(recorder.sent == 3)
        #expect(recorder.received == [200, 200, 204])
        #expect(recorder.processed.count == 1)
        let summary = try #require(try recorder.processed.first?.get().stream)
        #expect(summary.events == 3)
        #expect(summary.connections == 3)
    }

    @Test func withoutARetryPolicyADropEndsTheSequenceWithItsError() async throws {
        let transport = ScriptedStreamTransport { _, _ in
            .stream(.eventStream, [.text("data: a\n\n"), .drop])
        }
        let client = makeClient(transport)
        var seen: [String] = []
        let error = await #expect(throws: CourierError.self) {
            for try await event in client.events(.feed) { seen.append(event.data) }
        }
        #expect(seen == ["a"])
        #expect(error?.code == .transport)
        #expect(transport.connections.count == 1)
    }

    @Test func withoutARetryPolicyACleanEndEndsTheSequence() async throws {
        let transport = ScriptedStreamTransport { _, _ in
            .stream(.eventStream, [.text("data: a\n\ndata: b\n\n")])
        }
        let client = makeClient(transport)
        #expect(try await Self.collect(client.events(.feed)).map(\.data) == ["a", "b"])
        #expect(transport.connections.count == 1)
    }

    @Test func aStatusThePolicyDoesNotRetryEndsIt() async throws {
        let transport = ScriptedStreamTransport { _, number in
            number == 1
                ? .stream(.eventStream, [.text("id: 7\ndata: a\n\n"), .drop])
                : .stream(HTTPResponse(status: .notFound), [.text("gone")])
        }
        let client = makeClient(transport)
        var seen: [String] = []
        let error = await #expect(throws: CourierError.self) {
            for try await event in client.events(Endpoint.feed.retrying(.standard)) {
                seen.append(event.data)
            }
        }
        #expect(seen == ["a"])
        #expect(error?.code == .status)
        #expect(error?.response?.statusCode == 404)
        #expect(transport.connections.count == 2)
    }

    @Test func connectionsWithoutAnEventCountAgainstThePolicyAndAnEventResetsTheCount() async throws {
        // maxAttempts 3: a drop and two failed reconnects in a row end it;
        // an event in between starts the count again.
        let transport = ScriptedStreamTransport { _, number in
            switch number {
            case 2: .stream(.eventStream, [.text("id: 1\ndata: a\n\n"), .drop])
            case 4: .stream(.eventStream, [.text("id: 2\ndata: b\n\n"), .drop])
            default: .stream(HTTPResponse(status: .serviceUnavailable), [])
            }
        }
        let client = makeClient(transport)
        var seen: [String] = []
        let error = await #expect(throws: CourierError.self) {
            for try await event in client.events(Endpoint.feed.retrying(.standard)) {
                seen.append(event.data)
            }
        }
        #expect(seen == ["a", "b"])
        #expect(error?.code == .status)
        #expect(error?.response?.statusCode == 503)
        #expect(transport.connections.count == 6)
    }

    @Test func interceptorsRunOnEveryReconnect() async throws {
        let tokens = Counter()
        let transport = ScriptedStreamTransport { _, number in
            number < 3
                ? .stream(.eventStream, [.text("id: \(number)\ndata: x\n\n"), .drop])
                : .stream(HTTPResponse(status: .noContent), [])
        }
        let client = makeClient(
            transport, callInterceptors: [.bearer { "token-\(tokens.increment())" }])
        _ = try await Self.collect(client.events(Endpoint.feed.retrying(.standard)))
        #expect(
            transport.connections.map { $0.head.headerFields[.authorization] } == [
                "Bearer token-1", "Bearer token-2", "Bearer token-3",
            ])
    }

    @Test func aBodyThatIsNotAnEventStreamIsRefused() async throws {
        let transport = ScriptedStreamTransport { _, _ in
            .stream(HTTPResponse(status: .ok, headerFields: [.contentType: "text/html"]), [.text("<html>")])
        }
        let client = makeClient(transport)
        let error = await #expect(throws: CourierError.self) {
            _ = try await Self.collect(client.events(Endpoint.feed.retrying(.standard)))
        }
        #expect(error?.code == .contentType)
        #expect(transport.connections.count == 1)
    }

    @Test func tenThousandEventsAcrossDropsArriveOnceEach() async throws {
        // The server drops after every 1,000 events and resumes after Last-Event-ID.
        let total = 10_000
        let transport = ScriptedStreamTransport { request, _ in
            let after = request.head.headerFields[Self.lastEventID].flatMap { Int($0) } ?? 0
            guard after < total else { return .stream(HTTPResponse(status: .noContent), []) }
            let upTo = min(total, after + 1_000)
            let text = (after + 1...upTo).map { "id: \($0)\ndata: \($0)\n\n" }.joined()
            // Chunks cut anywhere, a partial event before the drop.
            let bytes = Array(text.utf8) + Array("id: \(upTo + 1)\ndata: cut".utf8)
            let steps = stride(from: 0, to: bytes.count, by: 777).map {
                ScriptedStreamTransport.Step.bytes(Array(bytes[$0..<min(bytes.count, $0 + 777)]))
            }
            return .stream(.eventStream, steps + [.drop])
        }
        let client = makeClient(transport)
        let events = try await Self.collect(client.events(Endpoint.feed.retrying(.standard)))
        #expect(events.count == total)
        #expect(events.map(\.data) == (1...total).map(String.init))
        #expect(transport.connections.count == 11)
    }
}

/// An event stream behind an ``Authenticator``: the token expires while the
/// stream is open; the reconnect is refused with a 401, the authenticator
/// refreshes once and replays it, and the stream goes on from its last id.
struct EventStreamAuthenticationTests {
    /// Bearer tokens; a refresh gives "fresh" and is counted.
    struct Provider: CredentialProvider {
        let refreshes = Counter()
        func apply(_ credential: String, to request: inout HTTPRequest) throws {
            request.headerFields[.authorization] = "Bearer \(credential)"
        }
        func refresh(_ credential: String, through client: APIClient) async throws -> String {
            _ = refreshes.increment()
            return "fresh"
        }
    }

    @Test func aTokenThatExpiredMidStreamIsRefreshedOnTheReconnect() async throws {
        let provider = Provider()
        let auth = Authenticator(provider, for: [.api], credential: "stale")
        let transport = ScriptedStreamTransport { request, number in
            let token = request.head.headerFields[.authorization]
            switch number {
            case 1: return .stream(.eventStream, [.text("id: 1\ndata: a\n\n"), .drop])
            case 2: return .stream(HTTPResponse(status: .unauthorized), [.text("token expired")])
            default:
                guard token == "Bearer fresh" else { return .stream(HTTPResponse(status: .unauthorized), []) }
                let after = request.head.headerFields[EventStreamCallTests.lastEventID] ?? ""
                return after == "1"
                    ? .stream(.eventStream, [.text("id: 2\ndata: b\n\n")])
                    : .stream(HTTPResponse(status: .noContent), [])
            }
        }
        let client = APIClient(
            configuration: .init(
                transport: transport, callInterceptors: [auth], retryPolicy: .standard, clock: TestClock()))
        let events = try await EventStreamCallTests.collect(client.events(.feed))
        #expect(events.map(\.data) == ["a", "b"])
        #expect(provider.refreshes.value == 1)
        #expect(
            transport.connections.map { $0.head.headerFields[.authorization] } == [
                "Bearer stale", "Bearer stale", "Bearer fresh", "Bearer fresh",
            ])
    }
}
