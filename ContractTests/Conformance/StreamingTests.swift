@_spi(Transport) import CourierCore
import CourierCurl
import CourierMockServer
import CourierStreamFormats
import CourierTesting
import HTTPTypes
import Testing

/// CurlTransport's streamed bodies, over both event loops: events as they
/// arrive, a slow reader pausing the transfer, a reader that gives up, and
/// a stream that drops.
struct StreamingTests {
    static let loops: [CurlTransport.Configuration.EventLoop] = [.automatic, .poll]

    static let stubs = #"""
        {"mappings": [
          {"id": "events", "request": {"urlPath": "/events"}, "response": {"eventStream": {
            "lineBreak": "crlf", "retryMs": 250,
            "events": [{"id": "1", "event": "status", "data": "placed"}, {"comment": "ping"},
                       {"id": "2", "data": "two\nlines", "delayMs": 5}, {"id": "3", "data": "shipped"}]}}},
          {"id": "slow", "request": {"urlPath": "/slow"}, "response": {"eventStream": {
            "generate": {"count": 200, "data": "tick {n}", "delayMs": 50}}}},
          {"id": "drops", "request": {"urlPath": "/drops"}, "response": {"eventStream": {
            "generate": {"count": 5, "data": "d {n}"}, "dropAfterEvents": 2}}}
        ]}
        """#

    func withStreaming(
        _ loop: CurlTransport.Configuration.EventLoop,
        _ body: (MockServer, CurlTransport) async throws -> Void
    ) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            try await withCurlTransport(configuration: .init(eventLoop: loop)) { transport async throws in
                try await body(server, transport)
            }
        }
    }

    @Test(arguments: loops)
    func eventsArriveAsTheServerSendsThem(loop: CurlTransport.Configuration.EventLoop) async throws {
        try await withStreaming(loop) { server, transport in
            let response = try await transport.stream(request(server, "/events"), options: .init())
            #expect(response.statusCode == 200)
            #expect(response.head.headerFields[.contentType] == "text/event-stream")
            // The body as it came off the wire, then parsed: the `retry` field
            // must arrive too (what a reconnect waits; it yields no event).
            let wire = try await response.body.collect(upTo: 1 << 20)
            #expect(String(decoding: wire, as: UTF8.self).contains("retry: 250\r\n"))
            let chunks = AsyncStream<[UInt8]> {
                $0.yield(wire)
                $0.finish()
            }
            var events: [ServerSentEvent] = []
            for try await event in chunks.serverSentEvents { events.append(event) }
            #expect(
                events == [
                    ServerSentEvent(type: "status", data: "placed", lastEventID: "1"),
                    ServerSentEvent(data: "two\nlines", lastEventID: "2"),
                    ServerSentEvent(data: "shipped", lastEventID: "3"),
                ])
        }
    }

    /// 6 MiB from a reader that stops until the buffer is full: the buffer
    /// never holds much more than its megabyte (the transfer pauses), and
    /// every byte then arrives, in order, through the pauses and resumes.
    @Test(arguments: loops)
    func aSlowReaderPausesTheTransferAndLosesNothing(loop: CurlTransport.Configuration.EventLoop) async throws
    {
        let size = 6 << 20
        try await withStreaming(loop) { server, transport in
            let response = try await transport.stream(request(server, "/bytes/\(size)"), options: .init())
            // Nobody reads yet: the buffer fills and refuses, and the transfer pauses.
            await response.body.holdingBack()
            #expect(response.body.isHoldingBack)
            #expect(response.body.peakBufferedBytes < (1 << 20) + (64 << 10))
            let (received, intact) = try await readPattern(response.body)
            #expect(received == size)
            #expect(intact)
            #expect(response.body.peakBufferedBytes < (1 << 20) + (64 << 10))
        }
    }

    @Test(arguments: loops)
    func aReaderThatGivesUpStopsTheTransfer(loop: CurlTransport.Configuration.EventLoop) async throws {
        try await withStreaming(loop) { server, transport in
            let response = try await transport.stream(request(server, "/slow"), options: .init())
            var iterator = response.body.serverSentEvents.makeAsyncIterator()
            #expect(try await iterator.next()?.data == "tick 1")
            response.body.cancel()
            await #expect(throws: CancellationError.self) { _ = try await iterator.next() }
            try await waitUntil { transport.load.active == 0 }
            #expect(transport.load.active == 0)
        }
    }

    @Test(arguments: loops)
    func aDropMidStreamEndsTheBodyWithAnError(loop: CurlTransport.Configuration.EventLoop) async throws {
        try await withStreaming(loop) { server, transport in
            let response = try await transport.stream(request(server, "/drops"), options: .init())
            var data: [String] = []
            do {
                for try await event in response.body.serverSentEvents { data.append(event.data) }
                Issue.record("the dropped stream ended cleanly")
            } catch let error as TransportError {
                #expect([.connectionReset, .protocolError].contains(error.code), "\(error)")
            }
            #expect(data == ["d 1", "d 2"])
        }
    }
}
