import CourierMockServer
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a raw TCP client saw of one connection.
struct RawExchange: Sendable {
    enum Ending: Sendable, Equatable {
        /// The server closed cleanly (FIN).
        case eof
        /// The server reset the connection (RST).
        case reset
        /// The test stopped reading on purpose.
        case stoppedReading
        /// The server never ended the connection; the client's safety net
        /// (ten minutes) cut it off.
        case neverClosed
    }

    var bytes: [UInt8]
    var ending: Ending

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The response parsed as HTTP/1.1, when it is one.
    var response: ParsedResponse? { ParsedResponse(bytes) }
}

/// A minimal HTTP/1.1 response parser for assertions.
struct ParsedResponse: Sendable {
    var statusLine: String
    var status: Int
    var headers: [(String, String)]
    /// The body, de-chunked when chunked.
    var body: [UInt8]
    /// Whether the body had as many bytes as the head promised (or a complete chunked framing).
    var complete: Bool
    /// How many chunks carried the body (chunked framing only; 0 otherwise).
    var chunkCount = 0

    init?(_ bytes: [UInt8]) {
        guard let end = Self.find([13, 10, 13, 10], in: bytes) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        guard let first = head.first else { return nil }
        statusLine = first
        let parts = first.split(separator: " ")
        status = parts.count > 1 ? Int(parts[1]) ?? -1 : -1
        headers = head.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]),
                String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            )
        }
        let rest = Array(bytes[(end + 4)...])
        if headers.contains(where: {
            $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked"
        }) {
            (body, complete, chunkCount) = Self.dechunk(rest)
        } else if let length = headers.first(where: { $0.0.lowercased() == "content-length" }).flatMap({
            Int($0.1)
        }) {
            body = Array(rest.prefix(length))
            complete = rest.count >= length
        } else {
            body = rest
            complete = true
        }
    }

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    var bodyText: String { String(decoding: body, as: UTF8.self) }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count)
        where Array(haystack[index..<index + needle.count]) == needle {
            return index
        }
        return nil
    }

    private static func dechunk(_ bytes: [UInt8]) -> ([UInt8], Bool, Int) {
        var body: [UInt8] = []
        var chunks = 0
        var rest = bytes[...]
        while let lineEnd = find([13, 10], in: Array(rest)) {
            let sizeText = String(decoding: rest.prefix(lineEnd), as: UTF8.self)
            guard let size = Int(sizeText, radix: 16) else { return (body, false, chunks) }
            rest = rest.dropFirst(lineEnd + 2)
            if size == 0 { return (body, true, chunks) }
            guard rest.count >= size + 2 else { return (body + rest.prefix(size), false, chunks + 1) }
            body += rest.prefix(size)
            chunks += 1
            rest = rest.dropFirst(size + 2)
        }
        return (body, false, chunks)
    }
}

enum RawClient {
    /// Connects, sends `request`, and reads until the server closes or resets,
    /// or until `stopAfter` bytes arrived.
    static func exchange(port: Int, _ request: [UInt8], stopAfter: Int? = nil, halfClose: Bool = false)
        async throws -> RawExchange
    {
        try await exchange(
            on: try await connect(port: port), request, stopAfter: stopAfter, halfClose: halfClose)
    }

    /// Like ``exchange(port:_:stopAfter:halfClose:)`` on a connection made earlier.
    static func exchange(
        on channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, _ request: [UInt8], stopAfter: Int? = nil,
        halfClose: Bool = false
    ) async throws -> RawExchange {
        // A safety net against a hung test, not a timing assertion: a server
        // that never closes is cut off after ten minutes and the test fails
        // on what it then sees. (A minute was missed under ThreadSanitizer
        // beside `stress`: a thousand connections at once, 300 KB of chunks.)
        let cutOff = NIOLockedValueBox(false)
        let safety = channel.channel.eventLoop.scheduleTask(in: .seconds(600)) {
            cutOff.withLockedValue { $0 = true }
            channel.channel.close(promise: nil)
        }
        defer { safety.cancel() }
        let exchange = try await channel.executeThenClose { inbound, outbound in
            do {
                try await outbound.write(ByteBuffer(bytes: request))
            } catch let error as IOError where error.errnoCode == ECONNRESET || error.errnoCode == EPIPE {
                return RawExchange(bytes: [], ending: .reset)
            }
            if halfClose { try await outbound.finish() }
            var received: [UInt8] = []
            do {
                for try await var buffer in inbound {
                    received += buffer.readBytes(length: buffer.readableBytes) ?? []
                    if let stopAfter, received.count >= stopAfter {
                        return RawExchange(bytes: received, ending: .stoppedReading)
                    }
                }
                return RawExchange(bytes: received, ending: .eof)
            } catch let error as IOError where error.errnoCode == ECONNRESET {
                return RawExchange(bytes: received, ending: .reset)
            }
        }
        if cutOff.withLockedValue({ $0 }) { return RawExchange(bytes: exchange.bytes, ending: .neverClosed) }
        return exchange
    }

    /// A GET (or other) request with `Connection: close`, so the server ends the exchange.
    static func request(
        _ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        close: Bool = true
    ) -> [UInt8] {
        var lines = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1"]
        for (name, value) in headers { lines.append("\(name): \(value)") }
        if !body.isEmpty || method == "POST" || method == "PUT" {
            lines.append("Content-Length: \(body.count)")
        }
        if close { lines.append("Connection: close") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
    }

    /// Sends a request and parses the response; fails the test when it is not HTTP.
    static func send(
        port: Int, _ target: String, method: String = "GET", headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws -> ParsedResponse {
        let exchange = try await exchange(port: port, request(method, target, headers: headers, body: body))
        guard let response = exchange.response else {
            throw RawClientError("not an HTTP response: \(exchange.text)")
        }
        return response
    }

    static func connect(port: Int) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        // A safety net, not a deadline (NIO's default, 10 s, was missed by
        // a thousand connections at once under ThreadSanitizer on a busy machine).
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(120))
            .channelOption(.allowRemoteHalfClosure, value: true)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Outbound half-closure on, so that `halfClose` sends a FIN.
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
    }
}

struct RawClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Builds a stub from contract JSON in a test.
func stubs(_ json: String) throws -> [StubMapping] {
    try ContractLoader.parse(Array(json.utf8), file: "<test>")
}

/// Expects contract JSON to be refused, naming `message` and a path in the response.
func expectRefusedResponse(
    _ json: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        _ = try ContractLoader.parse(Array(json.utf8), file: "bad.json")
        Issue.record("accepted \(json)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.description.contains(message), "\(error)", sourceLocation: sourceLocation)
        #expect(error.path.hasPrefix("$.response"), "\(error)", sourceLocation: sourceLocation)
    }
}

/// A server with these stubs (JSON), for one test.
func withServer<T: Sendable>(
    _ json: String = #"{"mappings": []}"#, strict: Bool = true, journalCapacity: Int = 10_000,
    _ body: (MockServer) async throws -> T
) async throws -> T {
    try await withMockServer(
        .init(stubs: try stubs(json), strict: strict, journalCapacity: journalCapacity), body)
}
