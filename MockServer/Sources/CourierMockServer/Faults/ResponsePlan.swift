import NIOCore

/// The steps the server takes to answer one exchange: bytes, waits and
/// socket actions. Faults are plans too, so every misbehaviour is data.
enum PlanStep: Sendable {
    /// Write these bytes.
    case write([UInt8])
    /// Write these prepared bytes: shared by every answer that sends them, never copied.
    case send(ByteBuffer)
    /// Wait this many milliseconds.
    case wait(Int)
    /// Close cleanly (FIN).
    case close
    /// Close with RST (SO_LINGER 0).
    case reset
    /// Shut down the server's output.
    case shutdownOutput
    /// Shut down the server's input.
    case shutdownInput
    /// Do nothing more; keep the connection open.
    case stall
    /// Write endless header lines.
    case endlessHeaders
    /// Write an endless chunked body.
    case endlessBody
    /// Write the first `count` bytes of ``BuiltinRoutes/patternByte(_:)``,
    /// generated a piece at a time.
    case pattern(count: Int)
}

/// How the connection continues after a plan ran.
enum PlanOutcome: Sendable {
    /// Ready for the next request.
    case keepAlive
    /// The connection is closed (or closing).
    case closed
    /// The server stays silent on this connection.
    case silent
}

struct ResponsePlan: Sendable {
    var steps: [PlanStep]
    var status: Int?

    /// Builds the plan for a stub response, applying its fault.
    static func make(_ response: StubResponse, delayMs: Int, keepAlive: Bool) -> ResponsePlan {
        var steps: [PlanStep] = delayMs > 0 ? [.wait(delayMs)] : []
        let body = response.body
        let connection = keepAlive ? "keep-alive" : "close"
        func head(
            _ extra: [(String, String)] = [], contentLength: Int? = body.count, connectionHeader: Bool = true,
            reserving bodyCapacity: Int = 0
        )
            -> [UInt8]
        {
            var head = HeadWriter(status: response.status, reserving: bodyCapacity)
            for header in response.headers { head.field(header.name, header.value) }
            for header in extra { head.field(header.0, header.1) }
            if let contentLength { head.field("Content-Length", String(contentLength)) }
            if connectionHeader { head.field("Connection", connection) }
            return head.finish()
        }
        guard let fault = response.fault else {
            // The common answer: head and body in one buffer, built once.
            var bytes = head(reserving: body.count)
            bytes += body
            steps.append(.write(bytes))
            if !keepAlive { steps.append(.close) }
            return ResponsePlan(steps: steps, status: response.status)
        }
        var status: Int? = response.status
        switch fault {
        case .resetBeforeHeaders:
            steps.append(.reset)
            status = nil
        case .closeBeforeHeaders:
            steps.append(.close)
            status = nil
        case .garbageThenClose(let bytes, let seed):
            steps += [.write(SeededRandom.bytes(bytes, seed: seed)), .close]
            status = nil
        case .stall:
            steps.append(.stall)
            status = nil
        case .malformedChunk:
            let chunked = head([("Transfer-Encoding", "chunked")], contentLength: nil)
            steps += [.write(chunked + Array("4\r\nabcd\r\nzz\r\nnot a chunk\r\n".utf8)), .close]
        case .closeMidBody(let count):
            steps += [.write(head() + body.prefix(count)), .close]
        case .resetMidBody(let count):
            steps += [.write(head() + body.prefix(count)), .reset]
        case .contentLengthMismatch(let extra):
            steps += [.write(head(contentLength: body.count + extra) + body), .close]
        case .stallMidBody(let count):
            steps += [.write(head() + body.prefix(count)), .stall]
        case .slowHeaders(let delay):
            steps += [.wait(delay), .write(head() + body)]
            if !keepAlive { steps.append(.close) }
        case .throttleBody(let bytes, let period):
            steps.append(.write(head()))
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + bytes)
                steps.append(.write(Array(body[offset..<end])))
                offset = end
                if offset < body.count { steps.append(.wait(period)) }
            }
            if !keepAlive { steps.append(.close) }
        case .dribble(let chunks, let duration):
            steps.append(.write(head([("Transfer-Encoding", "chunked")], contentLength: nil)))
            let size = max(1, (body.count + chunks - 1) / chunks)
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + size)
                steps.append(.write(Chunked.frame(Array(body[offset..<end]))))
                offset = end
                steps.append(.wait(duration / chunks))
            }
            steps.append(.write(Chunked.last))
            if !keepAlive { steps.append(.close) }
        case .doNotReadRequestBody:
            // Half-close and discard what follows: closing with unread input
            // would send RST and could destroy the answer in the client's kernel.
            steps += [.write(Self.withClose(head(connectionHeader: false)) + body), .shutdownOutput]
        case .closeDuringRequestBody:
            steps.append(.close)
            status = nil
        case .halfCloseOutput:
            steps += [.write(head() + body), .shutdownOutput]
        case .halfCloseInput:
            steps += [.write(head() + body), .shutdownInput]
        case .closeAfterResponse:
            steps += [.write(head(connectionHeader: false) + body), .close]
        case .duplicateContentLength:
            steps += [.write(head([("Content-Length", "\(body.count + 1)")]) + body), .close]
        case .contentLengthAndChunked:
            let both = head([("Transfer-Encoding", "chunked")])
            steps += [.write(both + Chunked.frame(body) + Chunked.last), .close]
        case .invalidStatusLine:
            steps += [.write(Array("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n".utf8)), .close]
            status = nil
        case .oversizedHeaders(let bytes):
            let line = "X-Filler: " + String(repeating: "f", count: 990)
            let count = max(1, (bytes + line.utf8.count + 1) / (line.utf8.count + 2))
            steps += [
                .write(head(Array(repeating: ("X-Filler", String(line.dropFirst(10))), count: count)) + body)
            ]
            steps.append(.close)
        case .endlessHeaders:
            steps += [
                .write(
                    Array("HTTP/1.1 \(response.status) \(HTTPStatusText.reason(response.status))\r\n".utf8)),
                .endlessHeaders,
            ]
        case .endlessBody:
            steps += [.write(head([("Transfer-Encoding", "chunked")], contentLength: nil)), .endlessBody]
        }
        return ResponsePlan(steps: steps, status: status)
    }

    /// The plan for a matched stub answer: its prepared bytes when it has
    /// them and nothing changes them (no delay, a kept-alive connection, no
    /// range asked of it), otherwise ``make(_:delayMs:keepAlive:)``.
    static func answer(_ matched: MatchedResponse, for request: RecordedRequest, keepAlive: Bool)
        -> (plan: ResponsePlan, sent: StubResponse)
    {
        if let prepared = matched.prepared, keepAlive, matched.delayMs == 0,
            !RangeRequests.mayApply(matched.response, for: request)
        {
            return (ResponsePlan(steps: [.send(prepared)], status: matched.response.status), matched.response)
        }
        let response = RangeRequests.apply(matched.response, for: request)
        return (make(response, delayMs: matched.delayMs, keepAlive: keepAlive), response)
    }

    /// The bytes ``make(_:delayMs:keepAlive:)`` writes for a fault-free,
    /// undelayed answer on a kept-alive connection, made once per stub
    /// response: most stubs answer the same bytes every time, and building
    /// the head per request was a fifth of the server's own work.
    static func prepared(_ response: StubResponse) -> ByteBuffer? {
        guard response.fault == nil, response.eventStream == nil, response.ndjson == nil,
            case .write(let bytes)? = make(response, delayMs: 0, keepAlive: true).steps.first
        else { return nil }
        return ByteBuffer(bytes: bytes)
    }

    /// A fault-free response whose body is `count` generated pattern bytes.
    static func streamedPattern(_ response: StubResponse, count: Int, keepAlive: Bool) -> ResponsePlan {
        var head = HeadWriter(status: response.status)
        for header in response.headers { head.field(header.name, header.value) }
        head.field("Content-Length", String(count))
        head.field("Connection", keepAlive ? "keep-alive" : "close")
        var steps: [PlanStep] = [.write(head.finish())]
        steps.append(.pattern(count: count))
        if !keepAlive { steps.append(.close) }
        return ResponsePlan(steps: steps, status: response.status)
    }

    /// A head that ends with `Connection: close`.
    private static func withClose(_ head: [UInt8]) -> [UInt8] {
        Array(head.dropLast(2)) + Array("Connection: close\r\n\r\n".utf8)
    }
}

/// A response head written straight into bytes: the status line, one
/// `Name: value` line per field, and the blank line.
struct HeadWriter {
    private var bytes: [UInt8] = []

    /// Starts with the status line; `reserving` makes room for a body appended after the head.
    init(status: Int, reserving bodyCapacity: Int = 0) {
        bytes.reserveCapacity(256 + bodyCapacity)
        bytes += "HTTP/1.1 ".utf8
        bytes += String(status).utf8
        bytes.append(UInt8(ascii: " "))
        bytes += HTTPStatusText.reason(status).utf8
        bytes += "\r\n".utf8
    }

    mutating func field(_ name: String, _ value: String) {
        bytes += name.utf8
        bytes += ": ".utf8
        bytes += value.utf8
        bytes += "\r\n".utf8
    }

    /// The head with its closing blank line.
    consuming func finish() -> [UInt8] {
        bytes += "\r\n".utf8
        return bytes
    }
}

/// Chunked transfer-coding frames.
enum Chunked {
    static func frame(_ bytes: [UInt8]) -> [UInt8] {
        Array((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + Array("\r\n".utf8)
    }

    static let last = Array("0\r\n\r\n".utf8)
}

/// Reason phrases for status lines.
enum HTTPStatusText {
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
