import Foundation

/// A `text/event-stream` response: server-sent events, written one by one
/// as chunks of a chunked body, each after its own delay.
///
/// In contract files, a response's `eventStream` (instead of a body):
/// ```json
/// "eventStream": {
///   "retryMs": 500,
///   "events": [{"id": "1", "event": "status", "data": "placed", "delayMs": 20},
///              {"comment": "still here"}, {"id": "2", "data": "line one\nline two"}],
///   "generate": {"count": 10000, "event": "tick", "data": "tick {n}"},
///   "dropAfterEvents": 2,
///   "lineBreak": "crlf"
/// }
/// ```
/// A request with `Last-Event-ID` gets the events after the one with that
/// id (all of them when no event has it), so a client that reconnects
/// continues where it left off. `dropAfterEvents` closes the connection
/// without ending the body after that many events — only on a connection
/// whose request has no `Last-Event-ID`, so a drop happens once and the
/// resumed stream runs to its end.
public struct EventStream: Sendable, Hashable {
    /// How lines end on the wire: every form the specification allows.
    public enum LineBreak: String, Sendable, Hashable, CaseIterable {
        case lf, crlf, cr

        var bytes: [UInt8] {
            switch self {
            case .lf: [10]
            case .crlf: [13, 10]
            case .cr: [13]
            }
        }
    }

    /// One event (or a comment line), and how long to wait before sending it.
    public struct Event: Sendable, Hashable {
        /// `id:`; the id a reconnecting client sends back as `Last-Event-ID`.
        public var id: String?
        /// `event:`, the event's type.
        public var event: String?
        /// `data:`, one line per line of the text.
        public var data: String?
        /// A comment line (`: text`), which clients ignore.
        public var comment: String?
        /// `retry:`, the reconnection delay the client should use from now on.
        public var retryMs: Int?
        /// Milliseconds to wait before this event is written.
        public var delayMs: Int

        /// An event; give at least one field.
        public init(
            id: String? = nil, event: String? = nil, data: String? = nil, comment: String? = nil,
            retryMs: Int? = nil, delayMs: Int = 0
        ) {
            self.id = id
            self.event = event
            self.data = data
            self.comment = comment
            self.retryMs = retryMs
            self.delayMs = delayMs
        }

        /// The event on the wire, its blank line included.
        func bytes(_ lineBreak: LineBreak) -> [UInt8] {
            var lines: [String] = []
            if let comment { lines.append(": " + comment) }
            if let retryMs { lines.append("retry: \(retryMs)") }
            if let id { lines.append("id: " + id) }
            if let event { lines.append("event: " + event) }
            if let data {
                // Every line break in the text starts another data line.
                let normalised = data.replacingOccurrences(of: "\r\n", with: "\n")
                    .replacingOccurrences(of: "\r", with: "\n")
                for line in normalised.split(separator: "\n", omittingEmptySubsequences: false) {
                    lines.append("data: " + line)
                }
            }
            let end = lineBreak.bytes
            return lines.flatMap { Array($0.utf8) + end } + end
        }
    }

    /// The events, in order.
    public var events: [Event]
    /// `retry:` sent before the first event, if any.
    public var retryMs: Int?
    /// Close the connection mid-stream after this many events (a fresh
    /// connection only; see the type's description).
    public var dropAfterEvents: Int?
    /// How lines end.
    public var lineBreak: LineBreak
    /// Answer `204 No Content` to a reconnect whose `Last-Event-ID` is the
    /// last event's: the stream is over, and a 204 is how a server tells an
    /// `EventSource` to stop reconnecting.
    public var noContentWhenDone: Bool

    /// A stream of `events`.
    public init(
        events: [Event], retryMs: Int? = nil, dropAfterEvents: Int? = nil, lineBreak: LineBreak = .lf,
        noContentWhenDone: Bool = false
    ) {
        self.events = events
        self.retryMs = retryMs
        self.dropAfterEvents = dropAfterEvents
        self.lineBreak = lineBreak
        self.noContentWhenDone = noContentWhenDone
    }

    /// Whether a connection that sent `lastEventID` is told the stream is over.
    func isDone(after lastEventID: String?) -> Bool {
        guard noContentWhenDone, let lastEventID, let last = events.last(where: { $0.id != nil }) else {
            return false
        }
        return last.id == lastEventID
    }

    /// The events a connection sends: those after the one whose id is
    /// `lastEventID`, or all when it is nil or no event has it.
    func events(after lastEventID: String?) -> ArraySlice<Event> {
        guard let lastEventID, let index = events.lastIndex(where: { $0.id == lastEventID }) else {
            return events[...]
        }
        return events[(index + 1)...]
    }
}
