import CourierCodable
@_spi(Locking) import CourierCore
import CourierStreamFormats
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// `client.stream(_:)`: the pipeline up to the head, then the body as it
/// arrives, with its deadlines, its cancellation and one report at the end.
struct StreamingCallTests {
    static func text(_ body: StreamedBody) async throws -> String {
        var bytes: [UInt8] = []
        for try await chunk in body { bytes += chunk }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func theHeadComesFirstAndPluginsSeeOneCallWithItsCounts() async throws {
        let gate = TestGate()
        let transport = ScriptedStreamTransport { _, _ in
            .stream(.ndjson, [.text("{\"n\":1}\n"), .wait(gate), .text("{\"n\":2}\n")])
        }
        let recorder = StreamRecorder()
        let client = makeClient(transport, plugins: [recorder])
        // Given a body whose second chunk waits for the gate,
        let reply = try await client.stream(.feed)
        // the head is in before the body is,
        #expect(reply.statusCode == 200)
        #expect(reply.attempts == 1)
        #expect(recorder.sent == 1)
        #expect(recorder.received == [200])
        #expect(recorder.processed.isEmpty)
        var iterator = reply.body.makeAsyncIterator()
        #expect(try await iterator.next() == Array("{\"n\":1}\n".utf8))
        gate.open()
        #expect(try await iterator.next() == Array("{\"n\":2}\n".utf8))
        #expect(try await iterator.next() == nil)
        // and `process` runs once, at the end, with what the body carried.
        #expect(recorder.processed.count == 1)
        let ended = try #require(try recorder.processed.first?.get())
        #expect(ended.stream == StreamSummary(bytes: 16, chunks: 2, events: nil, connections: 1))
        #expect(ended.metrics.bytesReceived == 16)
        #expect(try await iterator.next() == nil)  // reading past the end stays at the end
        #expect(recorder.processed.count == 1)
    }

    @Test func anErrorStatusIsReadWholeAndThrownWithItsEnvelope() async throws {
        let body = #"{"code":4031,"msg":"no access to this feed","data":null}"#
        let transport = ScriptedStreamTransport { _, _ in
            .stream(
                HTTPResponse(status: .forbidden, headerFields: [.contentType: "application/json"]),
                [.text(String(body.prefix(20))), .text(String(body.dropFirst(20)))])
        }
        let recorder = StreamRecorder()
        let client = makeClient(transport, plugins: [recorder])
        let error = await #expect(throws: CourierError.self) {
            _ = try await client.stream(Endpoint<RawResponse>(.get("feed"), on: .enveloped))
        }
        #expect(error?.code == .status)
        #expect(error?.businessFailure?.code == 4031)
        #expect(error?.businessFailure?.message == "no access to this feed")
        #expect(error?.response?.body.bytes == Array(body.utf8))
        #expect(recorder.processed.count == 1)
        #expect(client.runningCalls == 0)
    }

    @Test func aJSONEnvelopeWhereAStreamWasExpectedIsCheckedLikeAnyResponse() async throws {
        let transport = ScriptedStreamTransport { _, _ in
            .stream(
                HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
                [.text(#"{"code":1002,"msg":"export not ready","data":null}"#)])
        }
        let client = makeClient(transport)
        let error = await #expect(throws: CourierError.self) {
            _ = try await client.stream(Endpoint<RawResponse>(.get("feed"), on: .enveloped))
        }
        #expect(error?.code == .envelope)
        #expect(error?.businessFailure?.code == 1002)
    }

    @Test func failuresBeforeTheHeadAreRetriedByThePolicy() async throws {
        let transport = ScriptedStreamTransport { _, number in
            number == 1
                ? .fail(TransportError(.connectionFailed, "refused")) : .stream(.ndjson, [.text("ok\n")])
        }
        let client = makeClient(transport, retryPolicy: .standard)
        let reply = try await client.stream(.feed)
        #expect(reply.attempts == 2)
        #expect(try await Self.text(reply.body) == "ok\n")
        #expect(transport.connections.count == 2)
    }

    @Test func theIdleTimeoutEndsAQuietStreamAndStopsItsTransfer() async throws {
        let clock = TestClock(mode: .manual)
        let transport = ScriptedStreamTransport { _, _ in .stream(.ndjson, [.text("first\n"), .hang]) }
        let client = makeClient(transport, clock: clock)
        let reply = try await client.stream(.feed, timeouts: StreamTimeouts(idle: .seconds(30)))
        var iterator = reply.body.makeAsyncIterator()
        // A chunk waiting in the buffer is returned without a timer,
        #expect(try await iterator.next() == Array("first\n".utf8))
        // then the reader waits for the server, which is quiet:
        let reading = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(29))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: CourierError.self) { _ = try await reading.value }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("idle") == true)
        try await waitUntil { transport.endedBodies > 0 }
        #expect(transport.cancelledBodies == 1)
        #expect(client.runningCalls == 0)
    }

    @Test func theTotalTimeoutEndsALongStream() async throws {
        let clock = TestClock(mode: .manual)
        let gate = TestGate()
        let transport = ScriptedStreamTransport { _, _ in
            .stream(.ndjson, [.text("a\n"), .wait(gate), .text("b\n")])
        }
        let client = makeClient(transport, clock: clock)
        let reply = try await client.stream(.feed, timeouts: StreamTimeouts(total: .seconds(60)))
        var iterator = reply.body.makeAsyncIterator()
        #expect(try await iterator.next() == Array("a\n".utf8))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(60))
        let error = await #expect(throws: CourierError.self) { _ = try await iterator.next() }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("total") == true)
        gate.open()
    }

    @Test func cancelAllStopsAStreamBeingRead() async throws {
        let transport = ScriptedStreamTransport { _, _ in .stream(.ndjson, [.text("a\n"), .hang]) }
        let client = makeClient(transport)
        let reply = try await client.stream(.feed)
        #expect(client.runningCalls == 1)
        var iterator = reply.body.makeAsyncIterator()
        _ = try await iterator.next()
        client.cancelAll()
        let error = await #expect(throws: CourierError.self) { _ = try await iterator.next() }
        #expect(error?.code == .cancelled)
        #expect(client.runningCalls == 0)
        try await waitUntil { transport.endedBodies > 0 }
        #expect(transport.cancelledBodies == 1)
    }

    @Test func cancellingTheReadingTaskStopsTheTransfer() async throws {
        let transport = ScriptedStreamTransport { _, _ in .stream(.ndjson, [.text("a\n"), .hang]) }
        let recorder = StreamRecorder()
        let client = makeClient(transport, plugins: [recorder])
        let reply = try await client.stream(.feed)
        let reader = Task {
            var chunks = 0
            for try await _ in reply.body { chunks += 1 }
            return chunks
        }
        try await waitUntil { reply.body.summary.chunks > 0 }
        reader.cancel()
        let error = await #expect(throws: CourierError.self) { _ = try await reader.value }
        #expect(error?.code == .cancelled)
        await recorder.waitForProcess()
        #expect(recorder.processed.first?.failureValue?.code == .cancelled)
        try await waitUntil { transport.endedBodies > 0 }
        #expect(transport.cancelledBodies == 1)
    }

    @Test func aBodyDroppedUnreadIsCancelledAndReportedOnce() async throws {
        let transport = ScriptedStreamTransport { _, _ in .stream(.ndjson, [.hang]) }
        let recorder = StreamRecorder()
        let client = makeClient(transport, plugins: [recorder])
        do {
            let reply = try await client.stream(.feed)
            #expect(reply.statusCode == 200)
        }
        await recorder.waitForProcess()
        #expect(recorder.processed.count == 1)
        #expect(recorder.processed.first?.failureValue?.code == .cancelled)
        try await waitUntil { transport.endedBodies > 0 }
        #expect(transport.cancelledBodies == 1)
        #expect(client.runningCalls == 0)
    }

    @Test func aPerCallInterceptorsOwnAnswerLeavesNoTransferBehind() async throws {
        let transport = ScriptedStreamTransport { _, _ in .stream(.ndjson, [.text("wire\n"), .hang]) }
        // An interceptor that lets the attempt open its stream, then answers
        // with a response of its own (an empty body, its own head):
        let own = ClosureInterceptor(name: "own answer") { request, _, next in
            _ = try await next(request)
            return RawResponse(
                head: HTTPResponse(status: .ok, headerFields: [.contentType: "application/x-ndjson"]))
        }
        let client = makeClient(transport, callInterceptors: [own.declaring(.none)])
        let reply = try await client.stream(.feed)
        // the caller reads the interceptor's answer, not the wire's body,
        var iterator = reply.body.makeAsyncIterator()
        #expect(try await iterator.next() == nil)
        // and the stream the attempt opened is stopped, not left running.
        try await waitUntil { transport.endedBodies > 0 }
        #expect(transport.cancelledBodies == 1)
    }

    @Test func aPerCallInterceptorThatSendsTwiceKeepsOnlyTheLastBody() async throws {
        let transport = ScriptedStreamTransport { _, connection in
            .stream(.ndjson, [.text("connection \(connection)\n"), .hang])
        }
        let twice = ClosureInterceptor(name: "twice") { request, _, next in
            _ = try await next(request)
            return try await next(request)
        }
        let client = makeClient(transport, callInterceptors: [twice.declaring(.none)])
        let reply = try await client.stream(.feed)
        var iterator = reply.body.makeAsyncIterator()
        #expect(try await iterator.next() == Array("connection 2\n".utf8))
        // The first connection's body was stopped when the second opened.
        try await waitUntil { transport.endedBodies > 0 }
        #expect(transport.cancelledBodies == 1)
    }

    @Test func aTransportThatCannotStreamIsAClearError() async throws {
        let client = makeClient(StubTransport.immediate(.text("x")))
        let error = await #expect(throws: CourierError.self) { _ = try await client.stream(.feed) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("StreamingTransport") == true)
    }

    @Test func linesAndNDJSONReadTheStreamedBody() async throws {
        struct Row: Decodable, Sendable, Equatable { let n: Int }
        let transport = ScriptedStreamTransport { _, _ in
            .stream(.ndjson, [.text("{\"n\":1}\n{\"n\""), .text(":2}\n\n{\"n\":3}")])
        }
        let client = makeClient(transport)
        let rows = try await client.stream(.feed).body.decoded(Row.self, using: .codable)
        var seen: [Row] = []
        for try await row in rows { seen.append(row) }
        #expect(seen == [Row(n: 1), Row(n: 2), Row(n: 3)])
    }
}
