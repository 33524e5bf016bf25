import Foundation

extension ContractParser {
    /// A response's `eventStream` (see ``EventStream``).
    func parseEventStream(_ value: JSONValue, path: String) throws(ContractError) -> EventStream {
        let reader = try ContractReader(
            file: file, path: path, value: value,
            allowed: ["events", "generate", "retryMs", "dropAfterEvents", "lineBreak", "noContentWhenDone"])
        var events: [EventStream.Event] = []
        for (index, item) in (try reader.array("events") ?? []).enumerated() {
            events.append(try parseEvent(item, path: "\(path).events[\(index)]"))
        }
        if let generate = try reader.child("generate", allowed: ["count", "event", "data", "delayMs"]) {
            let count = try generate.int("count", in: 0...1_000_000) ?? 0
            let type = try generate.string("event")
            let data = try generate.string("data") ?? "{n}"
            let delay = try generate.int("delayMs", in: 0...600_000) ?? 0
            let first = events.count + 1
            for number in first..<(first + count) {
                events.append(
                    EventStream.Event(
                        id: "\(number)", event: type,
                        data: data.replacingOccurrences(of: "{n}", with: "\(number)"),
                        delayMs: delay))
            }
        }
        guard !events.isEmpty || reader.has("retryMs") else {
            throw reader.error("events", "an event stream needs events (or generate)")
        }
        var lineBreak = EventStream.LineBreak.lf
        if let name = try reader.string("lineBreak") {
            guard let parsed = EventStream.LineBreak(rawValue: name) else {
                throw reader.error("lineBreak", "must be lf, crlf or cr")
            }
            lineBreak = parsed
        }
        return EventStream(
            events: events, retryMs: try reader.int("retryMs", in: 0...86_400_000),
            dropAfterEvents: try reader.int("dropAfterEvents", in: 0...1_000_000), lineBreak: lineBreak,
            noContentWhenDone: try reader.bool("noContentWhenDone") ?? false)
    }

    private func parseEvent(_ value: JSONValue, path: String) throws(ContractError) -> EventStream.Event {
        let reader = try ContractReader(
            file: file, path: path, value: value,
            allowed: ["id", "event", "data", "comment", "retryMs", "delayMs"])
        let event = EventStream.Event(
            id: try reader.string("id"), event: try reader.string("event"), data: try reader.string("data"),
            comment: try reader.string("comment"), retryMs: try reader.int("retryMs", in: 0...86_400_000),
            delayMs: try reader.int("delayMs", in: 0...600_000) ?? 0)
        guard
            event.id != nil || event.event != nil || event.data != nil || event.comment != nil
                || event.retryMs != nil
        else { throw ContractError(file: file, path: path, message: "an event needs at least one field") }
        // A line break would end the field early: the stream would not say what the file does.
        for (key, text) in [("id", event.id), ("event", event.event), ("comment", event.comment)] {
            if let text, text.contains(where: \.isNewline) {
                throw reader.error(key, "must be one line")
            }
        }
        if event.id?.contains("\0") == true { throw reader.error("id", "must not contain NUL") }
        return event
    }
}

extension ContractParser {
    /// A response's `ndjson` (see ``NDJSONStream``).
    func parseNDJSON(_ value: JSONValue, path: String) throws(ContractError) -> NDJSONStream {
        let reader = try ContractReader(
            file: file, path: path, value: value,
            allowed: ["lines", "generate", "malformedLines", "linesPerChunk", "delayMs", "dropAfterLines"])
        var lines = (try reader.array("lines") ?? []).map { String(decoding: $0.jsonBytes, as: UTF8.self) }
        if let generate = try reader.child("generate", allowed: ["count", "template"]) {
            let count = try generate.int("count", in: 0...1_000_000) ?? 0
            guard let template = generate.value("template") else {
                throw generate.error("template", "is required")
            }
            let text = String(decoding: template.jsonBytes, as: UTF8.self)
            let first = lines.count + 1
            lines.reserveCapacity(lines.count + count)
            for number in first..<(first + count) {
                lines.append(
                    text.replacingOccurrences(of: "\"{n}\"", with: "\(number)")
                        .replacingOccurrences(of: "{n}", with: "\(number)"))
            }
        }
        if let malformed = try reader.child("malformedLines", allowed: Set(lines.indices.map { "\($0 + 1)" }))
        {
            for (key, raw) in malformed.object {
                guard case .string(let text) = raw, !text.contains(where: \.isNewline) else {
                    throw malformed.error(key, "must be one line of text")
                }
                if let number = Int(key) { lines[number - 1] = text }
            }
        }
        guard !lines.isEmpty else {
            throw reader.error("lines", "an NDJSON stream needs lines (or generate)")
        }
        return NDJSONStream(
            lines: lines, linesPerChunk: try reader.int("linesPerChunk", in: 1...1_000_000) ?? 1,
            delayMs: try reader.int("delayMs", in: 0...600_000) ?? 0,
            dropAfterLines: try reader.int("dropAfterLines", in: 0...10_000_000))
    }
}
