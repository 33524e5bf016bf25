import CourierCodable
@_spi(Locking) import CourierCore
import CourierStreamFormats
import Testing

/// The server-sent-event parser against the WHATWG standard's rules, and the
/// line and NDJSON sequences, with chunks split at every possible place.
struct StreamingParserTests {
    /// `text` fed whole, byte by byte, and split in two at every offset:
    /// every way must give the same events.
    static func events(_ text: String) -> [ServerSentEvent] {
        let bytes = Array(text.utf8)
        var whole = ServerSentEventParser()
        let expected = whole.feed(bytes)
        var single = ServerSentEventParser()
        #expect(bytes.flatMap { single.feed([$0]) } == expected, "byte by byte: \(text.debugDescription)")
        for cut in 0...bytes.count {
            var parser = ServerSentEventParser()
            let split = parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...])
            #expect(split == expected, "split at \(cut): \(text.debugDescription)")
        }
        return expected
    }

    @Test func dataLinesJoinWithLineFeeds() {
        #expect(Self.events("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test func commentsTypesAndOneLeadingSpace() {
        let events = Self.events(": test stream\n\nevent: add\ndata:73857293\n\ndata:  two spaces\n\n")
        #expect(
            events == [ServerSentEvent(type: "add", data: "73857293"), ServerSentEvent(data: " two spaces")])
    }

    @Test func theLastEventIDCarriesOverAndAnEmptyIDClearsIt() {
        let events = Self.events("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: x\u{0}y\ndata: d\n\n")
        #expect(events.map(\.lastEventID) == ["1", "1", "", ""])
    }

    @Test func emptyDataStillDispatchesAndAnUnfinishedEventIsDropped() {
        let events = Self.events("data\n\ndata\ndata\n\nevent: only-type\n\ndata: never ends")
        #expect(events.map(\.data) == ["", "\n"])
    }

    @Test func everyLineBreakFormAndAByteOrderMarkOnlyAtTheStart() {
        let events = Self.events("\u{FEFF}data: a\r\rdata: b\r\n\r\ndata: c\n\n\u{FEFF}data: d\n\n")
        #expect(events.map(\.data) == ["a", "b", "c"])
    }

    @Test func retryTakesDigitsOnly() {
        var parser = ServerSentEventParser()
        _ = parser.feed(Array("retry: 1500\n\nretry: 15x\n\n".utf8))
        #expect(parser.reconnectionTime == 1500)
        _ = parser.feed(Array("retry: 0\n\n".utf8))
        #expect(parser.reconnectionTime == 0)
    }

    static func chunks(_ text: String, size: Int) -> AsyncStream<[UInt8]> {
        let bytes = Array(text.utf8)
        return AsyncStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: size) {
                continuation.yield(Array(bytes[start..<min(bytes.count, start + size)]))
            }
            continuation.finish()
        }
    }

    @Test(arguments: [1, 2, 3, 7, 100])
    func linesAndEventsFromChunks(size: Int) async throws {
        var lines: [String] = []
        for try await line in Self.chunks("a\r\nb\rc\n\nd", size: size).lines { lines.append(line) }
        #expect(lines == ["a", "b", "c", "", "d"])
        var events: [ServerSentEvent] = []
        for try await event in Self.chunks("id: 7\nevent: e\ndata: x\n\ndata: y\n\n", size: size)
            .serverSentEvents
        {
            events.append(event)
        }
        #expect(
            events == [
                ServerSentEvent(type: "e", data: "x", lastEventID: "7"),
                ServerSentEvent(data: "y", lastEventID: "7"),
            ])
    }

    struct Row: Codable, Equatable, Sendable {
        let id: Int
    }

    @Test(arguments: [1, 5, 100])
    func ndjsonDecodesLazilyAndNamesABadLine(size: Int) async throws {
        let text = "{\"id\": 1}\n\n{\"id\": 2}\r\n{not json\n{\"id\": 4}"
        var rows: [Row] = []
        do {
            for try await row in Self.chunks(text, size: size).decoded(Row.self, using: CodableDecoder()) {
                rows.append(row)
            }
            Issue.record("a bad line went unnoticed")
        } catch let error as NDJSONLineError {
            #expect(error.line == 4)
            #expect(error.excerpt == "{not json")
        }
        #expect(rows == [Row(id: 1), Row(id: 2)])

        let skipped = SkippedLines()
        var all: [Row] = []
        let sequence = Self.chunks(text, size: size).decoded(
            Row.self, using: CodableDecoder(), badLines: .skip { skipped.add($0.line) })
        for try await row in sequence { all.append(row) }
        #expect(all == [Row(id: 1), Row(id: 2), Row(id: 4)])
        #expect(skipped.lines == [4])
    }
}

/// Line numbers a `.skip` handler reported.
final class SkippedLines: Sendable {
    private let storage = Locked<[Int]>([])
    func add(_ line: Int) { storage.withLock { $0.append(line) } }
    var lines: [Int] { storage.withLock { $0 } }
}

/// What a reconnect carries over: the id of the last complete event, and
/// the reconnection time; a new connection may open with a byte order mark.
struct EventReconnectionParserTests {
    @Test func aReconnectSendsTheIDOfTheLastCompleteEventNotOfOneCutShort() {
        var parser = ServerSentEventParser()
        let first = parser.feed(Array("retry: 250\nid: 1\ndata: a\n\nid: 2\ndata: cut sho".utf8))
        #expect(first == [ServerSentEvent(data: "a", lastEventID: "1")])
        #expect(parser.lastEventID == "1")
        parser.finish()
        parser.reconnect()
        let resumed = parser.feed(Array("\u{FEFF}data: b\n\nid: 3\ndata: c\n\n".utf8))
        #expect(
            resumed == [
                ServerSentEvent(data: "b", lastEventID: "1"), ServerSentEvent(data: "c", lastEventID: "3"),
            ])
        #expect(parser.reconnectionTime == 250)
    }
}
