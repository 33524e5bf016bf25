extension ResponsePlan {
    /// An event stream's plan: the head (`text/event-stream`, `no-cache`),
    /// `retry` if set, then each event as a chunk after its delay.
    static func eventStream(
        _ response: StubResponse, _ stream: EventStream, lastEventID: String?, delayMs: Int, keepAlive: Bool
    ) -> ResponsePlan {
        var head = chunkedHead(
            response, defaults: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
            keepAlive: keepAlive)
        if let retry = stream.retryMs {
            head += Chunked.frame(
                Array("retry: \(retry)".utf8) + stream.lineBreak.bytes + stream.lineBreak.bytes)
        }
        let sending = stream.events(after: lastEventID)
        // A drop happens on a fresh connection only (see EventStream).
        let sent = lastEventID == nil ? stream.dropAfterEvents.map { min($0, sending.count) } : nil
        var steps: [PlanStep] = [.write(head)]
        for event in sending.prefix(sent ?? sending.count) {
            if event.delayMs > 0 { steps.append(.wait(event.delayMs)) }
            steps.append(.write(Chunked.frame(event.bytes(stream.lineBreak))))
        }
        return streamed(
            response, steps, dropped: (sent ?? sending.count) < sending.count, delayMs: delayMs,
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
        var steps: [PlanStep] = [.write(head)]
        for start in stride(from: 0, to: sent, by: stream.linesPerChunk) {
            if start > 0, stream.delayMs > 0 { steps.append(.wait(stream.delayMs)) }
            let lines = stream.lines[start..<min(sent, start + stream.linesPerChunk)]
            steps.append(.write(Chunked.frame(lines.flatMap { Array($0.utf8) + [10] })))
        }
        return streamed(
            response, steps, dropped: sent < stream.lines.count, delayMs: delayMs, keepAlive: keepAlive)
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

    /// `steps` after the stub's delay, then the last chunk — or, where the
    /// stream drops, a plain close with the body unfinished.
    private static func streamed(
        _ response: StubResponse, _ steps: [PlanStep], dropped: Bool, delayMs: Int, keepAlive: Bool
    ) -> ResponsePlan {
        var plan: [PlanStep] = delayMs > 0 ? [.wait(delayMs)] : []
        plan += steps
        if dropped {
            plan.append(.close)
        } else {
            plan.append(.write(Chunked.last))
            if !keepAlive { plan.append(.close) }
        }
        return ResponsePlan(steps: plan, status: response.status)
    }
}
