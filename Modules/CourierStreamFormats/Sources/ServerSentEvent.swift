import CourierCore

/// One event of a `text/event-stream` body, as the WHATWG HTML standard's
/// `EventSource` dispatches it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: its `event` field, or `message` without one.
    public var type: String
    /// Its `data` lines, joined with LF.
    public var data: String
    /// The stream's last event ID when this event was dispatched: set by an
    /// `id` field and kept for the events after it, as a client sends it
    /// back in `Last-Event-ID` when it reconnects.
    public var lastEventID: String

    /// An event.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}

/// Parses a `text/event-stream` body fed in chunks of any size, per the
/// WHATWG HTML standard (§ 9.2.6): lines end with LF, CRLF or CR; a line
/// starting with a colon is a comment; `event`, `data`, `id` (without NUL)
/// and `retry` (digits only) are the fields, others are ignored; a blank
/// line dispatches the event when it has data; a byte order mark opening
/// the stream is skipped; an event not ended by a blank line when the body
/// ends is dropped. Works on bytes, so a chunk may end anywhere, inside a
/// UTF-8 sequence too.
package struct ServerSentEventParser: Sendable {
    private var lines = LineSplitter()
    private var data: [UInt8] = []
    private var hasData = false
    private var type: [UInt8] = []
    /// The last event ID buffer: set by an `id` field, taken when an event ends.
    private var lastEventIDBytes: [UInt8] = []
    /// The last event ID of the stream: the buffer as of the last blank line.
    private var dispatchedLastEventID: [UInt8] = []
    /// ``dispatchedLastEventID`` as text, made when it changes.
    private var lastEventIDText = ""
    /// The last event type dispatched, and its text (most streams repeat one).
    private var typeBytes: [UInt8] = []
    private var typeText = "message"
    /// Bytes of the stream's start still to check for a byte order mark.
    private var start: [UInt8] = []
    private var started = false

    /// The reconnection time the stream asked for with `retry`, in milliseconds.
    package private(set) var reconnectionTime: Int?
    /// The last event ID so far — as of the last complete event, not an
    /// `id` line of one the connection cut short: what a reconnect sends as
    /// `Last-Event-ID`.
    package var lastEventID: String { lastEventIDText }

    /// A parser at the start of a stream.
    package init() {}

    /// The events `chunk` completes, in order.
    package mutating func feed(_ chunk: some Collection<UInt8>) -> [ServerSentEvent] {
        if !started {
            start += chunk
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            // Wait for three bytes (or a mismatch) before deciding.
            if start.count < 3, bom.starts(with: start) { return [] }
            started = true
            let bytes = start.starts(with: bom) ? Array(start.dropFirst(3)) : start
            start = []
            return split(bytes)
        }
        return split(chunk)
    }

    private mutating func split(_ bytes: some Collection<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        var splitter = lines
        splitter.feed(bytes) { take($0, into: &events) }
        lines = splitter
        return events
    }

    /// A new connection to the same event source: lines, data and the event
    /// type start over (a byte order mark may open it again); the last event
    /// ID and the reconnection time carry on, as `EventSource` keeps them
    /// across reconnects.
    package mutating func reconnect() {
        lines = LineSplitter()
        lastEventIDBytes = dispatchedLastEventID
        data = []
        hasData = false
        type = []
        start = []
        started = false
    }

    /// Ends the stream: an event without its closing blank line is dropped,
    /// as the standard says.
    package mutating func finish() {
        _ = lines.finish()
        data = []
        hasData = false
        type = []
    }

    /// The field a line names, compared as bytes: no string per line.
    private enum Field {
        case data, event, id, retry, other

        init(_ name: UnsafeBufferPointer<UInt8>) {
            func spells(_ text: StaticString) -> Bool {
                text.utf8CodeUnitCount == name.count
                    && text.withUTF8Buffer { $0.elementsEqual(name) }
            }
            switch name.count {
            case 4 where spells("data"): self = .data
            case 5 where spells("event"): self = .event
            case 2 where spells("id"): self = .id
            case 5 where spells("retry"): self = .retry
            default: self = .other
            }
        }
    }

    private mutating func take(_ line: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) {
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        if first == UInt8(ascii: ":") { return }
        let field: UnsafeBufferPointer<UInt8>
        let value: UnsafeBufferPointer<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = UnsafeBufferPointer(rebasing: line[..<colon])
            var valueStart = colon + 1
            if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
            value = UnsafeBufferPointer(rebasing: line[valueStart...])
        } else {
            field = line
            value = UnsafeBufferPointer(rebasing: line[line.count...])
        }
        switch Field(field) {
        case .data:
            if hasData { data.append(10) }
            data.append(contentsOf: value)
            hasData = true
        case .event:
            type.removeAll(keepingCapacity: true)
            type.append(contentsOf: value)
        case .id:
            if !value.contains(0) {
                lastEventIDBytes.removeAll(keepingCapacity: true)
                lastEventIDBytes.append(contentsOf: value)
            }
        case .retry:
            if !value.isEmpty, value.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                reconnectionTime = Int(String(decoding: value, as: UTF8.self))
            }
        case .other:
            break
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        if dispatchedLastEventID != lastEventIDBytes {
            dispatchedLastEventID = lastEventIDBytes
            lastEventIDText = String(decoding: dispatchedLastEventID, as: UTF8.self)
        }
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            type.removeAll(keepingCapacity: true)
        }
        guard hasData else { return }
        if type != typeBytes {
            typeBytes = type
            typeText = type.isEmpty ? "message" : String(decoding: type, as: UTF8.self)
        }
        events.append(
            ServerSentEvent(
                type: typeText, data: String(decoding: data, as: UTF8.self), lastEventID: lastEventIDText))
    }
}
