import CourierMockServer
import Foundation
import Testing

/// Streamed NDJSON bodies from contract files: lines, generated lines,
/// malformed lines, chunking and a drop mid-body.
struct NDJSONStreamTests {
    static func stream(_ spec: String) -> String {
        #"{"id": "n", "request": {"urlPath": "/rows"}, "response": {"ndjson": \#(spec)}}"#
    }

    @Test func linesGeneratedLinesAndMalformedLinesInChunks() async throws {
        let spec = #"""
            {"lines": [{"id": 0, "name": "first"}],
             "generate": {"count": 4, "template": {"id": "{n}", "name": "row {n}"}},
             "malformedLines": {"3": "{not json"}, "linesPerChunk": 2}
            """#
        try await withServer(Self.stream(spec)) { server async throws in
            let exchange = try await RawClient.exchange(port: server.port, RawClient.request("GET", "/rows"))
            let response = try #require(exchange.response)
            #expect(response.header("Content-Type") == "application/x-ndjson")
            #expect(response.complete)
            #expect(
                String(decoding: response.body, as: UTF8.self)
                    == #"{"id":0,"name":"first"}"# + "\n" + #"{"id":2,"name":"row 2"}"# + "\n{not json\n"
                    + #"{"id":4,"name":"row 4"}"# + "\n" + #"{"id":5,"name":"row 5"}"# + "\n")
            // Three chunks of at most two lines: 5 lines, then the last chunk.
            #expect(exchange.text.components(separatedBy: "\r\n").filter { $0 == "0" }.count == 1)
        }
    }

    @Test func aDropClosesMidBody() async throws {
        let spec = #"{"generate": {"count": 10, "template": {"n": "{n}"}}, "dropAfterLines": 3}"#
        try await withServer(Self.stream(spec)) { server async throws in
            let response = try await RawClient.send(port: server.port, "/rows")
            #expect(!response.complete)
            #expect(String(decoding: response.body, as: UTF8.self) == "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n")
        }
    }

    @Test(arguments: [
        (#"{"lines": [1]}, "jsonBody": 2"#, "give only one of"),
        (#"{"lines": [1]}, "fault": "stall""#, "does not apply to an NDJSON stream"),
        (#"{"lines": []}"#, "needs lines"),
        (#"{"lines": [1], "malformedLines": {"2": "x"}}"#, "2"),
        (#"{"lines": [1], "malformedLines": {"1": "a\nb"}}"#, "one line"),
        (#"{"generate": {"count": 2}}"#, "template"),
        (#"{"lines": [1], "linesPerChunk": 0}"#, "linesPerChunk"),
    ])
    func badStreamsAreRefusedWithTheirPath(spec: String, message: String) {
        expectRefusedResponse(Self.stream(spec), message)
    }
}
