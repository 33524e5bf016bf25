extension ResponsePlan {
    /// An event stream's plan: the head (`text/event-stream`, `no-cache`),
    /// `retry` if set, then each event as a chunk after its delay.
    static func eventStream(
        _ response: StubResponse, _ stream: EventStream, lastEventID: String?, delayMs: Int, keepAlive: Bool
    ) -> ResponsePlan {
        let head = chunkedHead(
            response, defaults: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
            keepAlive: keepAlive)
        var pieces: [StreamPiece] = []
        if let retry = stream.retryMs {
            pieces.append(
                .bytes(Array("retry: \(retry)".utf8) + stream.lineBreak.bytes + stream.lineBreak.bytes))
        }
        let sending = stream.events(after: lastEventID)
        // A drop happens on a fresh connection only (see EventStream).
        let sent = lastEventID == nil ? stream.dropAfterEvents.map { min($0, sending.count) } : nil
        for event in sending.prefix(sent ?? sending.count) {
            if event.delayMs > 0 { pieces.append(.wait(event.delayMs)) }
            pieces.append(.bytes(event.bytes(stream.lineBreak)))
        }
        return streamed(
            response, head: head, pieces, dropped: (sent ?? sending.count) < sending.count, delayMs: delayMs,
            keepAlive: keepAlive)
    }

    /// A streamed NDJSON body's plan: the head (`application/x-ndjson`), then
    /// `linesPerChunk` lines a chunk with `delayMs` between chunks.
    static func ndjson(_ response: StubResponse, _ stream: NDJSONStream, delayMs: Int, keepAlive: Bool)
        -> ResponsePlan
    {
        let head = chunkedHead(
            response, defaults: [("Content-Type", "application/x-ndjson")], keepAlive: keepAlive)
        let sent = stream.dropAfterLines.map { min($0, stream.lines.count) } ?? stream.lines.count
        var pieces: [StreamPiece] = []
        for start in stride(from: 0, to: sent, by: stream.linesPerChunk) {
            if start > 0, stream.delayMs > 0 { pieces.append(.wait(stream.delayMs)) }
            let lines = stream.lines[start..<min(sent, start + stream.linesPerChunk)]
            pieces.append(.bytes(lines.flatMap { Array($0.utf8) + [10] }))
        }
        return streamed(
            response, head: head, pieces, dropped: sent < stream.lines.count, delayMs: delayMs,
            keepAlive: keepAlive)
    }

    /// A chunked head: the response's own fields, each of `defaults` the
    /// response does not name, then the framing.
    private static func chunkedHead(
        _ response: StubResponse, defaults: [(String, String)], keepAlive: Bool
    ) -> [UInt8] {
        var lines = ["HTTP/1.1 \(response.status) \(HTTPStatusText.reason(response.status))"]
        let named = Set(response.headers.map { $0.name.lowercased() })
        for header in response.headers { lines.append("\(header.name): \(header.value)") }
        for (name, value) in defaults where !named.contains(name.lowercased()) {
            lines.append("\(name): \(value)")
        }
        lines += ["Transfer-Encoding: chunked", "Connection: \(keepAlive ? "keep-alive" : "close")"]
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// A streamed body before framing: its chunks and the pauses between them.
    enum StreamPiece {
        case bytes([UInt8])
        case wait(Int)
    }

    /// The head and `pieces` after the stub's delay, then the last chunk —
    /// or, where the stream drops, a plain close with the body unfinished.
    /// The stub's fault applies to the body as to any other: `dribble`
    /// re-cuts it into that many chunks (boundaries anywhere, inside an
    /// event or a line); `closeMidBody`, `resetMidBody` and `stallMidBody`
    /// end it after that many body bytes.
    private static func streamed(
        _ response: StubResponse, head: [UInt8], _ pieces: [StreamPiece], dropped: Bool, delayMs: Int,
        keepAlive: Bool
    ) -> ResponsePlan {
        var plan: [PlanStep] = delayMs > 0 ? [.wait(delayMs)] : []
        plan.append(.write(head))
        var ending: PlanStep?
        switch response.fault {
        case .dribble(let chunks, let duration):
            let body = pieces.flatMap { piece -> [UInt8] in
                if case .bytes(let bytes) = piece { return bytes }
                return []
            }
            let size = max(1, (body.count + max(1, chunks) - 1) / max(1, chunks))
            for start in stride(from: 0, to: body.count, by: size) {
                if start > 0, duration > 0 { plan.append(.wait(duration / max(1, chunks))) }
                plan.append(.write(Chunked.frame(Array(body[start..<min(body.count, start + size)]))))
            }
        case .closeMidBody(let count), .resetMidBody(let count), .stallMidBody(let count):
            var left = count
            for piece in pieces where left > 0 {
                switch piece {
                case .wait(let ms): plan.append(.wait(ms))
                case .bytes(let bytes):
                    plan.append(.write(Chunked.frame(Array(bytes.prefix(left)))))
                    left -= min(left, bytes.count)
                }
            }
            if case .resetMidBody = response.fault {
                ending = .reset
            } else if case .stallMidBody = response.fault {
                ending = .stall
            } else {
                ending = .close
            }
        default:
            for piece in pieces {
                switch piece {
                case .wait(let ms): plan.append(.wait(ms))
                case .bytes(let bytes): plan.append(.write(Chunked.frame(bytes)))
                }
            }
        }
        if let ending {
            plan.append(ending)
        } else if dropped {
            plan.append(.close)
        } else {
            plan.append(.write(Chunked.last))
            if !keepAlive { plan.append(.close) }
        }
        return ResponsePlan(steps: plan, status: response.status)
    }
}
