import CourierCodable
@_spi(Locking) import CourierCore
import CourierMockServer
import CourierStreamFormats
import CourierTesting
import HTTPTypes
import Testing

/// `client.stream(_:)` and `client.events(_:)` over every transport against
/// courier-mock: events through chunk boundaries anywhere, a slow reader,
/// a reader that gives up (the connection closes), an idle server, 10,000
/// events across a drop resumed from `Last-Event-ID`, an error answered
/// with an envelope, NDJSON decoded line by line.
struct StreamingCallTests {
    static let stubs = #"""
        {"mappings": [
          {"id": "events", "request": {"urlPath": "/orders/42/events"}, "response": {"eventStream": {
            "lineBreak": "crlf", "retryMs": 0, "noContentWhenDone": true,
            "events": [{"id": "1", "event": "status", "data": "placed"}, {"comment": "ping"},
                       {"id": "2", "event": "status", "data": "packed\nat dock 3"},
                       {"id": "3", "event": "status", "data": "shipped"}]}}},
          {"id": "dribbled", "request": {"urlPath": "/dribbled"}, "response": {
            "fault": {"name": "dribble", "chunks": 301, "overMs": 0},
            "eventStream": {"generate": {"count": 100, "event": "tick", "data": "tick {n}\nsecond line"}}}},
          {"id": "many", "request": {"urlPath": "/many"}, "response": {"eventStream": {
            "retryMs": 0, "noContentWhenDone": true, "dropAfterEvents": 3000,
            "generate": {"count": 10000, "data": "{n}"}}}},
          {"id": "slow", "request": {"urlPath": "/slow"}, "response": {"eventStream": {
            "generate": {"count": 2000, "data": "tick {n}", "delayMs": 500}}}},
          {"id": "quiet", "request": {"urlPath": "/quiet"}, "response": {"eventStream": {
            "events": [{"data": "hello"}, {"data": "much later", "delayMs": 600000}]}}},
          {"id": "refused", "request": {"urlPath": "/refused"}, "response": {"status": 403,
            "jsonBody": {"code": 4031, "msg": "no access to this feed", "data": null}}},
          {"id": "rows", "request": {"urlPath": "/rows"}, "response": {"ndjson": {
            "generate": {"count": 1000, "template": {"n": "{n}"}}, "malformedLines": {"500": "{not json"},
            "linesPerChunk": 7}}}
        ]}
        """#

    struct Row: Decodable, Sendable { let n: Int }

    func withStreaming(
        _ kind: TransportKind, clock: TestClock = TestClock(),
        _ body: (MockServer, APIClient, Node, _ baseURL: String) async throws -> Void
    ) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            try await kind.withFresh { transport async throws in
                let client = APIClient(
                    configuration: .init(
                        transport: transport, decoder: .codable, timeout: hangGuard, clock: clock))
                let baseURL = "http://127.0.0.1:\(server.port)"
                try await body(server, client, Node("mock", baseURL: baseURL), baseURL)
            }
        }
    }

    static func feed(_ path: String, on node: Node) -> Endpoint<RawResponse> {
        Endpoint(.get(RoutePath(escaped: path)), on: node).retrying(.standard)
    }

    @Test(arguments: TransportKind.allCases)
    func eventsArriveWithEveryFieldAndTheStreamEndsWith204(kind: TransportKind) async throws {
        try await withStreaming(kind) { server, client, node, _ in
            var events: [ServerSentEvent] = []
            for try await event in client.events(Self.feed("orders/42/events", on: node)) {
                events.append(event)
            }
            #expect(
                events == [
                    ServerSentEvent(type: "status", data: "placed", lastEventID: "1"),
                    ServerSentEvent(type: "status", data: "packed\nat dock 3", lastEventID: "2"),
                    ServerSentEvent(type: "status", data: "shipped", lastEventID: "3"),
                ])
            // The body ended cleanly, so the client reconnected as EventSource does, and the 204 ended it.
            let entries = server.journal.entries(stub: "events")
            #expect(entries.map(\.status) == [200, 204])
            #expect(entries.last?.request.header("Last-Event-ID") == "3")
            #expect(entries.allSatisfy { $0.request.header("Accept") == "text/event-stream" })
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aRedirectIsFollowedBeforeTheStream(kind: TransportKind) async throws {
        try await withStreaming(kind) { server, client, node, _ in
            var endpoint = Endpoint<RawResponse>(.get("redirect-to"), on: node)
            endpoint.query = ["url": "/orders/42/events", "status": 307]
            let reply = try await client.stream(endpoint)
            #expect(reply.statusCode == 200)
            var data: [String] = []
            for try await event in reply.body.serverSentEvents { data.append(event.data) }
            #expect(data == ["placed", "packed\nat dock 3", "shipped"])
            #expect(server.journal.entries.map(\.request.path) == ["/redirect-to", "/orders/42/events"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func chunkBoundariesAnywhereLoseNothing(kind: TransportKind) async throws {
        try await withStreaming(kind) { _, client, node, _ in
            let reply = try await client.stream(Endpoint<RawResponse>(.get("dribbled"), on: node))
            var events: [ServerSentEvent] = []
            for try await event in reply.body.serverSentEvents { events.append(event) }
            #expect(events.count == 100)
            #expect(events.map(\.data) == (1...100).map { "tick \($0)\nsecond line" })
            #expect(events.allSatisfy { $0.type == "tick" })
        }
    }

    @Test(arguments: TransportKind.allCases)
    func tenThousandEventsAcrossADropArriveOnceEach(kind: TransportKind) async throws {
        try await withStreaming(kind) { server, client, node, _ in
            var next = 1
            var inOrder = true
            var count = 0
            for try await event in client.events(Self.feed("many", on: node)) {
                inOrder = inOrder && event.data == String(next) && event.lastEventID == String(next)
                next += 1
                count += 1
            }
            #expect(count == 10_000)
            #expect(inOrder)
            let entries = server.journal.entries(stub: "many")
            // The server dropped after 3,000 events; the reconnect asked for what followed the
            // last one the client had. (async-http-client may fail the body before handing over
            // all that arrived before the drop: the reconnect then asks from an earlier id.)
            let resumedAfter = entries.map { $0.request.header("Last-Event-ID").flatMap { Int($0) } }
            #expect(resumedAfter.count == 3)
            #expect(resumedAfter.first == .some(nil))
            #expect((1...3000).contains(resumedAfter.dropFirst().first.flatMap { $0 } ?? 0))
            #expect(resumedAfter.last == 10000)
            #expect(entries.map(\.status) == [200, 200, 204])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aSlowReaderHoldsTheTransferBackAndLosesNothing(kind: TransportKind) async throws {
        let size = 6 << 20
        try await withStreaming(kind) { _, client, node, _ in
            let reply = try await client.stream(
                Endpoint<RawResponse>(.get(RoutePath(escaped: "bytes/\(size)")), on: node))
            // Nobody reads yet: the buffer fills and the transfer is held back.
            await reply.body.holdingBack()
            #expect(reply.body.isHoldingBack)
            let (received, intact) = try await readPattern(reply.body)
            #expect(received == size)
            #expect(intact)
            #expect(reply.body.peakBufferedBytes < (1 << 20) + (64 << 10))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingTheReaderClosesTheConnection(kind: TransportKind) async throws {
        try await withStreaming(kind) { server, client, node, _ in
            let reply = try await client.stream(Endpoint<RawResponse>(.get("slow"), on: node))
            let reader = Task {
                for try await event in reply.body.serverSentEvents where event.data == "tick 1" {
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            let error = await #expect(throws: CourierError.self) { try await reader.value }
            #expect(error?.code == .cancelled)
            // The server saw the connection close, and its plan ended there, before its 2,000
            // ticks (about 35 KB over 1,000 s, past the 600 s hang guard) were written: an
            // event, not a time — a loaded machine that takes long to close still passes.
            let closed = try await server.journal.waitFor(1) {
                $0.stubID == "slow" && $0.timestamps.connectionClosed != nil
                    && $0.timestamps.responseEnd != nil
            }
            #expect((closed.first?.bytesWritten ?? .max) < 30_000)
            #expect(client.runningCalls == 0)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aQuietServerMeetsTheIdleTimeout(kind: TransportKind) async throws {
        let clock = TestClock(mode: .manual)
        try await withStreaming(kind, clock: clock) { _, client, node, _ in
            let reply = try await client.stream(
                Endpoint<RawResponse>(.get("quiet"), on: node), timeouts: StreamTimeouts(idle: .seconds(30)))
            var events = reply.body.serverSentEvents.makeAsyncIterator()
            #expect(try await events.next()?.data == "hello")
            let waiting = Task { [events] in
                var events = events
                return try await events.next()
            }
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(30))
            let error = await #expect(throws: CourierError.self) { _ = try await waiting.value }
            #expect(error?.code == .timedOut)
            #expect(client.runningCalls == 0)
            // (The server notices the hang-up only when it next writes, ten minutes on.)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func anErrorAnswerIsReadWholeAndThrownWithItsEnvelope(kind: TransportKind) async throws {
        try await withStreaming(kind) { _, client, _, baseURL in
            let enveloped = Node("enveloped", baseURL: baseURL, envelope: .standard)
            let error = await #expect(throws: CourierError.self) {
                _ = try await client.stream(Endpoint<RawResponse>(.get("refused"), on: enveloped))
            }
            #expect(error?.code == .status)
            #expect(error?.response?.statusCode == 403)
            #expect(error?.businessFailure?.code == 4031)
            #expect(client.runningCalls == 0)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func ndjsonRowsDecodeLazilyAndABadLineIsReported(kind: TransportKind) async throws {
        try await withStreaming(kind) { _, client, node, _ in
            let skipped = Locked<[Int]>([])
            let rows = try await client.stream(Endpoint<RawResponse>(.get("rows"), on: node)).body
                .decoded(
                    Row.self, using: .codable,
                    badLines: .skip { error in skipped.withLock { $0.append(error.line) } })
            var numbers: [Int] = []
            for try await row in rows { numbers.append(row.n) }
            #expect(numbers == (1...1000).filter { $0 != 500 })
            #expect(skipped.withLock { $0 } == [500])
        }
    }
}
