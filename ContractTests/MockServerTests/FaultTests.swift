import CourierMockServer
import Foundation
import Testing

/// Every fault, observed by a raw TCP client, and recorded in the journal.
struct FaultTests {
    static let body = "0123456789"

    /// A server whose `/f` answers `body` with the fault.
    func withFault<T: Sendable>(_ fault: String, _ test: (MockServer) async throws -> T) async throws -> T {
        let json =
            #"{"id": "f", "request": {"urlPath": "/f"}, "response": {"body": "\#(Self.body)", "fault": \#(fault)}}"#
        return try await withServer(json) { server async throws in
            let result = try await test(server)
            let entry = try #require(try await server.journal.waitFor(1, stub: "f").first)
            let name = fault.hasPrefix("\"") ? String(fault.dropFirst().dropLast()) : ""
            if !name.isEmpty { #expect(entry.fault == name) }
            return result
        }
    }

    func get(_ server: MockServer, close: Bool = true, stopAfter: Int? = nil) async throws -> RawExchange {
        try await RawClient.exchange(
            port: server.port, RawClient.request("GET", "/f", close: close), stopAfter: stopAfter)
    }

    /// Sends, waits until the server has finished its plan, stops the server,
    /// and returns what the client saw: for faults that leave the connection open.
    func getThenStop(_ server: MockServer, body: [UInt8]? = nil) async throws -> RawExchange {
        let request = body.map { RawClient.request("POST", "/f", body: $0) } ?? RawClient.request("GET", "/f")
        let pending = Task { try await RawClient.exchange(port: server.port, request) }
        _ = try await server.journal.waitFor(1) { $0.timestamps.responseEnd != nil }
        await server.stop()
        return try await pending.value
    }

    @Test func resetBeforeHeaders() async throws {
        let seen = try await withFault(#""resetBeforeHeaders""#) { try await get($0) }
        #expect(seen.bytes.isEmpty)
        #expect(seen.ending == .reset)
    }

    @Test func closeBeforeHeaders() async throws {
        let seen = try await withFault(#""closeBeforeHeaders""#) { try await get($0) }
        #expect(seen.bytes.isEmpty)
        #expect(seen.ending == .eof)
    }

    @Test func garbageThenCloseIsRepeatable() async throws {
        let fault = #"{"name": "garbageThenClose", "bytes": 32, "seed": 3}"#
        let first = try await withFault(fault) { try await get($0) }
        let second = try await withFault(fault) { try await get($0) }
        #expect(first.bytes.count == 32)
        #expect(first.bytes == second.bytes)
        #expect(!first.text.hasPrefix("HTTP/"))
        #expect(first.ending == .eof)
    }

    @Test func stallSendsNothingAndKeepsTheConnection() async throws {
        let seen = try await withFault(#""stall""#) { server async throws in
            let seen = try await getThenStop(server)
            #expect(server.journal.entries.first?.bytesWritten == 0)
            return seen
        }
        #expect(seen.bytes.isEmpty)
        #expect(seen.ending == .eof)
    }

    @Test func malformedChunk() async throws {
        let seen = try await withFault(#""malformedChunk""#) { try await get($0) }
        let response = try #require(seen.response)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(!response.complete)
        #expect(seen.text.contains("\r\nzz\r\n"))
    }

    @Test func closeMidBody() async throws {
        let seen = try await withFault(#"{"name": "closeMidBody", "afterBytes": 3}"#) { try await get($0) }
        let response = try #require(seen.response)
        #expect(response.header("Content-Length") == "10")
        #expect(response.bodyText == "012")
        #expect(!response.complete)
        #expect(seen.ending == .eof)
    }

    @Test func resetMidBody() async throws {
        let seen = try await withFault(#"{"name": "resetMidBody", "afterBytes": 3}"#) { try await get($0) }
        #expect(seen.ending == .reset)
        #expect(seen.response?.complete != true)
    }

    @Test func contentLengthLongerThanTheBody() async throws {
        let seen = try await withFault(#"{"name": "contentLengthMismatch", "extra": 5}"#) {
            try await get($0)
        }
        let response = try #require(seen.response)
        #expect(response.header("Content-Length") == "15")
        #expect(response.bodyText == Self.body)
        #expect(!response.complete)
        #expect(seen.ending == .eof)
    }

    @Test func stallMidBody() async throws {
        let seen = try await withFault(#"{"name": "stallMidBody", "afterBytes": 4}"#) {
            try await getThenStop($0)
        }
        let response = try #require(seen.response)
        #expect(response.bodyText == "0123")
        #expect(!response.complete)
    }

    @Test(arguments: [
        #"{"name": "slowHeaders", "delayMs": 20}"#,
        #"{"name": "throttleBody", "bytes": 3, "perMs": 1}"#,
        #""closeAfterResponse""#,
    ])
    func slowButCompleteResponses(fault: String) async throws {
        let seen = try await withFault(fault) { try await get($0) }
        let response = try #require(seen.response)
        #expect(response.status == 200)
        #expect(response.bodyText == Self.body)
        #expect(response.complete)
        #expect(seen.ending == .eof)
    }

    @Test func closeAfterResponseDoesNotAnnounceIt() async throws {
        let seen = try await withFault(#""closeAfterResponse""#) { try await get($0, close: false) }
        #expect(seen.response?.header("Connection") == nil)
        #expect(seen.ending == .eof)
    }

    @Test func dribbleSendsChunks() async throws {
        let seen = try await withFault(#"{"name": "dribble", "chunks": 4, "overMs": 8}"#) {
            try await get($0)
        }
        let response = try #require(seen.response)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.bodyText == Self.body)
        #expect(response.complete)
        #expect(seen.text.contains("\r\n3\r\n012\r\n"))
    }

    @Test func doNotReadRequestBodyAnswersEarly() async throws {
        let seen = try await withFault(#""doNotReadRequestBody""#) { server async throws in
            // The head promises 100 bytes; only 10 follow, and the server answers anyway.
            let head = "POST /f HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789"
            let seen = try await RawClient.exchange(port: server.port, Array(head.utf8))
            let entry = try #require(server.journal.entries.first)
            #expect(entry.timestamps.bodyDone == nil)
            #expect(entry.request.body.isEmpty)
            return seen
        }
        #expect(seen.response?.status == 200)
        #expect(seen.response?.header("Connection") == "close")
        #expect(seen.ending == .eof)
    }

    @Test func closeDuringRequestBody() async throws {
        let seen = try await withFault(#""closeDuringRequestBody""#) { server async throws in
            let head = "POST /f HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n01234"
            return try await RawClient.exchange(port: server.port, Array(head.utf8))
        }
        #expect(seen.bytes.isEmpty)
        #expect(seen.ending == .eof)
    }

    @Test func halfCloseOutputSendsFINAfterTheResponse() async throws {
        let seen = try await withFault(#""halfCloseOutput""#) { try await get($0, close: false) }
        #expect(seen.response?.complete == true)
        #expect(seen.ending == .eof)
    }

    @Test func halfCloseInputAnswersThenStopsReading() async throws {
        let expected = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: keep-alive\r\n\r\n0123456789"
            .utf8.count
        let seen = try await withFault(#""halfCloseInput""#) {
            try await get($0, close: false, stopAfter: expected)
        }
        #expect(seen.response?.bodyText == Self.body)
    }

    @Test func duplicateContentLength() async throws {
        let seen = try await withFault(#""duplicateContentLength""#) { try await get($0) }
        let lengths = seen.response?.headers.filter { $0.0 == "Content-Length" }.map(\.1)
        #expect(Set(lengths ?? []) == ["10", "11"])
        #expect(lengths?.count == 2)
    }

    @Test func contentLengthAndChunked() async throws {
        let seen = try await withFault(#""contentLengthAndChunked""#) { try await get($0) }
        let response = try #require(seen.response)
        #expect(response.header("Content-Length") == "10")
        #expect(response.header("Transfer-Encoding") == "chunked")
    }

    @Test func invalidStatusLine() async throws {
        let seen = try await withFault(#""invalidStatusLine""#) { try await get($0) }
        #expect(seen.text.hasPrefix("HTTP/1.1 2x0 OK\r\n"))
        #expect(seen.response?.status == -1)
    }

    @Test func oversizedHeaders() async throws {
        let seen = try await withFault(#"{"name": "oversizedHeaders", "bytes": 65536}"#) { try await get($0) }
        let end = try #require(ParsedResponse.find([13, 10, 13, 10], in: seen.bytes))
        #expect(end >= 65_536)
        #expect(seen.response?.bodyText == Self.body)
    }

    @Test func endlessHeadersNeverEndTheHead() async throws {
        let seen = try await withFault(#""endlessHeaders""#) { try await get($0, stopAfter: 300_000) }
        #expect(seen.ending == .stoppedReading)
        #expect(seen.bytes.count >= 300_000)
        #expect(ParsedResponse.find([13, 10, 13, 10], in: seen.bytes) == nil)
    }

    @Test func endlessBodyKeepsSendingChunks() async throws {
        let seen = try await withFault(#""endlessBody""#) { try await get($0, stopAfter: 300_000) }
        #expect(seen.ending == .stoppedReading)
        #expect(seen.response?.header("Transfer-Encoding") == "chunked")
        #expect(seen.response?.complete == false)
    }

    @Test func everyFaultNameParses() throws {
        for name in MockFault.allNames {
            let stub = try #require(try stubs(#"{"request": {}, "response": {"fault": "\#(name)"}}"#).first)
            #expect(stub.responses.first?.fault?.name == name)
        }
        #expect(MockFault.allNames.count >= 20)
    }
}

struct ConnectionFaultTests {
    @Test func stallAfterAcceptReadsNothing() async throws {
        try await withServer { server async throws in
            server.queueConnectionFaults([.stallAfterAccept])
            // Connections are accepted in the order they were made: this one gets the fault.
            let stalled = try await RawClient.connect(port: server.port)
            #expect(try await RawClient.send(port: server.port, "/anything").status == 200)
            #expect(server.journal.entries.count == 1)
            await server.stop()
            let seen = try await RawClient.exchange(on: stalled, RawClient.request("GET", "/anything"))
            #expect(seen.bytes.isEmpty)
            #expect(server.journal.entries.count == 1)
        }
    }

    @Test func resetAfterAccept() async throws {
        try await withServer { server async throws in
            server.queueConnectionFaults([.resetAfterAccept])
            // The RST can reach the client while it connects, writes or reads;
            // whichever it is, no byte of a response arrives.
            do {
                let seen = try await RawClient.exchange(
                    port: server.port, RawClient.request("GET", "/anything"))
                #expect(seen.bytes.isEmpty)
                #expect(seen.ending != .stoppedReading)
            } catch {
                #expect("\(error)".contains("reset") || "\(error)".contains("closed channel"), "\(error)")
            }
            #expect(server.journal.entries.isEmpty)
            #expect(try await RawClient.send(port: server.port, "/anything").status == 200)
        }
    }

    @Test func refuseThenAcceptAgainOnTheSamePort() async throws {
        try await withServer { server async throws in
            try await server.refuseConnections()
            await #expect(throws: (any Error).self) { try await RawClient.connect(port: server.port) }
            try await server.acceptConnections()
            #expect(try await RawClient.send(port: server.port, "/status/204").status == 204)
        }
    }
}
