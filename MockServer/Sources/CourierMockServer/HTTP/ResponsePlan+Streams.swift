extension ResponsePlan {
    /// An event stream's plan: the head (chunked, `text/event-stream`,
    /// `no-cache`), `retry` if set, then each event as a chunk after its
    /// delay; the last chunk, or a plain close where the stream drops.
    static func eventStream(
        _ response: StubResponse, _ stream: EventStream, lastEventID: String?, delayMs: Int, keepAlive: Bool
    ) -> ResponsePlan {
        var steps: [PlanStep] = delayMs > 0 ? [.wait(delayMs)] : []
        var lines = ["HTTP/1.1 \(response.status) \(HTTPStatusText.reason(response.status))"]
        let named = Set(response.headers.map { $0.name.lowercased() })
        for header in response.headers { lines.append("\(header.name): \(header.value)") }
        if !named.contains("content-type") { lines.append("Content-Type: text/event-stream") }
        if !named.contains("cache-control") { lines.append("Cache-Control: no-cache") }
        lines += ["Transfer-Encoding: chunked", "Connection: \(keepAlive ? "keep-alive" : "close")"]
        var head = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        if let retry = stream.retryMs {
            head += Chunked.frame(
                Array("retry: \(retry)".utf8) + stream.lineBreak.bytes + stream.lineBreak.bytes)
        }
        steps.append(.write(head))
        let sending = stream.events(after: lastEventID)
        let drop = lastEventID == nil ? stream.dropAfterEvents.map { min($0, sending.count) } : nil
        for (index, event) in sending.enumerated() {
            if let drop, index == drop { break }
            if event.delayMs > 0 { steps.append(.wait(event.delayMs)) }
            steps.append(.write(Chunked.frame(event.bytes(stream.lineBreak))))
        }
        if let drop, drop < sending.count {
            steps.append(.close)
        } else {
            steps.append(.write(Chunked.last))
            if !keepAlive { steps.append(.close) }
        }
        return ResponsePlan(steps: steps, status: response.status)
    }
}

extension ResponsePlan {
    /// A streamed NDJSON body's plan: the head (chunked,
    /// `application/x-ndjson`), then `linesPerChunk` lines a chunk with
    /// `delayMs` between chunks; the last chunk, or a close where it drops.
    static func ndjson(_ response: StubResponse, _ stream: NDJSONStream, delayMs: Int, keepAlive: Bool)
        -> ResponsePlan
    {
        var steps: [PlanStep] = delayMs > 0 ? [.wait(delayMs)] : []
        var lines = ["HTTP/1.1 \(response.status) \(HTTPStatusText.reason(response.status))"]
        let named = Set(response.headers.map { $0.name.lowercased() })
        for header in response.headers { lines.append("\(header.name): \(header.value)") }
        if !named.contains("content-type") { lines.append("Content-Type: application/x-ndjson") }
        lines += ["Transfer-Encoding: chunked", "Connection: \(keepAlive ? "keep-alive" : "close")"]
        steps.append(.write(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)))
        let sent = stream.dropAfterLines.map { min($0, stream.lines.count) } ?? stream.lines.count
        var start = 0
        while start < sent {
            let end = min(sent, start + stream.linesPerChunk)
            if start > 0, stream.delayMs > 0 { steps.append(.wait(stream.delayMs)) }
            let chunk: [UInt8] = stream.lines[start..<end].flatMap { Array($0.utf8) + [10] }
            steps.append(.write(Chunked.frame(chunk)))
            start = end
        }
        if sent < stream.lines.count {
            steps.append(.close)
        } else {
            steps.append(.write(Chunked.last))
            if !keepAlive { steps.append(.close) }
        }
        return ResponsePlan(steps: steps, status: response.status)
    }
}
