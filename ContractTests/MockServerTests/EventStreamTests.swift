import CourierMockServer
import Foundation
import Testing

/// Server-sent events from contract files: the wire format, every line-break
/// form, a drop mid-stream, and resumption from `Last-Event-ID`.
struct EventStreamTests {
    static func stream(_ spec: String) -> String {
        #"{"id": "s", "request": {"urlPath": "/events"}, "response": {"eventStream": \#(spec)}}"#
    }

    @Test func eachEventIsAChunkInTheWireFormatAndTheBodyEnds() async throws {
        let spec = #"""
            {"retryMs": 300, "events": [
              {"id": "1", "event": "status", "data": "placed"},
              {"comment": "still here"},
              {"id": "2", "data": "line one\nline two", "retryMs": 900}
            ]}
            """#
        try await withServer(Self.stream(spec)) { server async throws in
            let response = try await RawClient.send(port: server.port, "/events")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/event-stream")
            #expect(response.header("Cache-Control") == "no-cache")
            #expect(response.header("Transfer-Encoding") == "chunked")
            #expect(response.complete)
            let expected =
                "retry: 300\n\nid: 1\nevent: status\ndata: placed\n\n: still here\n\n"
                + "retry: 900\nid: 2\ndata: line one\ndata: line two\n\n"
            #expect(String(decoding: response.body, as: UTF8.self) == expected)
        }
    }

    @Test(arguments: EventStream.LineBreak.allCases)
    func everyLineBreakForm(lineBreak: EventStream.LineBreak) async throws {
        let spec = #"{"lineBreak": "\#(lineBreak.rawValue)", "events": [{"id": "7", "data": "a\r\nb"}]}"#
        let end = ["lf": "\n", "crlf": "\r\n", "cr": "\r"][lineBreak.rawValue] ?? ""
        try await withServer(Self.stream(spec)) { server async throws in
            let response = try await RawClient.send(port: server.port, "/events")
            #expect(
                String(decoding: response.body, as: UTF8.self)
                    == "id: 7\(end)data: a\(end)data: b\(end)\(end)")
        }
    }

    /// A fresh connection drops after two of five events, with no last
    /// chunk; the reconnect with the last id gets the other three and the
    /// end; an id the stream does not have replays it all, undropped.
    @Test func aDropMidStreamAndResumptionFromTheLastEventID() async throws {
        let spec = #"{"generate": {"count": 5, "event": "tick", "data": "tick {n}"}, "dropAfterEvents": 2}"#
        try await withServer(Self.stream(spec)) { server async throws in
            let ids = { (body: [UInt8]) in
                String(decoding: body, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("id: ") }
                    .map { String($0.dropFirst(4)) }
            }
            let first = try await RawClient.send(port: server.port, "/events")
            #expect(ids(first.body) == ["1", "2"])
            #expect(!first.complete)
            #expect(String(decoding: first.body, as: UTF8.self).contains("event: tick\ndata: tick 2\n"))
            let resumed = try await RawClient.send(
                port: server.port, "/events", headers: [("Last-Event-ID", "2")])
            #expect(ids(resumed.body) == ["3", "4", "5"])
            #expect(resumed.complete)
            let unknown = try await RawClient.send(
                port: server.port, "/events", headers: [("Last-Event-ID", "nope")])
            #expect(ids(unknown.body) == ["1", "2", "3", "4", "5"])
            #expect(unknown.complete)
            #expect(server.journal.entries.count == 3)
        }
    }

    /// A stream takes the body faults that make sense mid-stream: `dribble`
    /// re-cuts it into chunks that split events anywhere, `closeMidBody`
    /// ends it after so many bytes without the last chunk.
    @Test func midStreamFaults() async throws {
        let events = #"{"generate": {"count": 5, "data": "tick {n}"}}"#
        let whole = (1...5).map { "id: \($0)\ndata: tick \($0)\n\n" }.joined()
        try await withServer(
            Self.stream(events + #", "fault": {"name": "dribble", "chunks": 9, "overMs": 0}"#)
        ) {
            server async throws in
            let response = try await RawClient.send(port: server.port, "/events")
            #expect(response.complete)
            #expect(String(decoding: response.body, as: UTF8.self) == whole)
            #expect(response.chunkCount == 9)
        }
        try await withServer(Self.stream(events + #", "fault": {"name": "closeMidBody", "afterBytes": 30}"#))
        {
            server async throws in
            let response = try await RawClient.send(port: server.port, "/events")
            #expect(!response.complete)
            #expect(String(decoding: response.body, as: UTF8.self) == String(whole.prefix(30)))
        }
    }

    @Test func aResumedStreamThatIsOverIsAnswered204WhenAsked() async throws {
        let spec = #"{"generate": {"count": 3, "data": "tick {n}"}, "noContentWhenDone": true}"#
        try await withServer(Self.stream(spec)) { server async throws in
            let done = try await RawClient.send(
                port: server.port, "/events", headers: [("Last-Event-ID", "3")])
            #expect(done.status == 204)
            #expect(done.body.isEmpty)
            let more = try await RawClient.send(
                port: server.port, "/events", headers: [("Last-Event-ID", "2")])
            #expect(more.status == 200)
            #expect(String(decoding: more.body, as: UTF8.self) == "id: 3\ndata: tick 3\n\n")
        }
    }

    @Test(arguments: [
        (#"{"events": [{"data": "x"}]}, "body": "y""#, "give only one of"),
        (#"{"events": [{"data": "x"}]}, "fault": "stall""#, "does not apply to an event stream"),
        (#"{"events": [{"data": "x"}]}, "fault": "malformedChunk""#, "takes dribble"),
        (#"{"events": [{}]}"#, "at least one field"),
        (#"{"events": [{"id": "a\nb"}]}"#, "must be one line"),
        (#"{"events": [{"data": "x"}], "lineBreak": "nl"}"#, "lf, crlf or cr"),
        (#"{"events": []}"#, "needs events"),
        (#"{"events": [{"data": "x", "delay": 5}]}"#, "delay"),
    ])
    func badStreamsAreRefusedWithTheirPath(spec: String, message: String) {
        expectRefusedResponse(Self.stream(spec), message)
    }
}
