import CourierCore
import CourierMockServer
import CourierPlugins
import Foundation
import HTTPTypes
import Testing

/// A body never travels without its own fields (RFC 9110 §15.4): a 307 or
/// 308 keeps the method, the body and `Content-Type`, `Content-Encoding`,
/// `Content-Length`, `Content-Language` on every hop, to the same origin or
/// another; credentials stay behind on a hop to another origin. Compressed
/// and plain, replayable and one-shot, over every transport; the wire read
/// from the record of the server the last hop reached.
struct RedirectBodyTests {
    enum Hop: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sameOrigin, crossOrigin
        var testDescription: String { rawValue }
    }

    enum Body: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// JSON, compressed by `RequestCompression` (once per call, before the hops).
        case compressed
        case plain
        /// Gzip bytes as a one-shot stream, the endpoint saying `Content-Encoding: gzip`.
        case compressedOneShot
        case plainOneShot
        var testDescription: String { rawValue }
    }

    /// 14,901 bytes of JSON, as in the report that found the dropped fields.
    static let json: [UInt8] = {
        let items = (0..<230).map { #"{"id":\#($0),"name":"item number \#($0)","tags":["a","b"]}"# }
        var text = "[" + items.joined(separator: ",") + "]"
        text += String(repeating: " ", count: max(0, 14_901 - text.utf8.count))
        return Array(text.utf8)
    }()

    /// ``json`` as `RequestCompression` sends it, read from the server's record.
    static func gzipped(_ kind: TransportKind, _ server: MockServer) async throws -> [UInt8] {
        let before = server.journal.entries.count
        let client = APIClient(
            configuration: .init(
                transport: kind.transport, callInterceptors: [RequestCompression(.gzip)], timeout: hangGuard))
        _ = try await client.send(
            Endpoint<RawResponse>(
                .post("anything"), on: Node("mock", baseURL: "http://127.0.0.1:\(server.port)"),
                content: .raw(json, contentType: "application/json")))
        let request = try #require(server.journal.entries.dropFirst(before).first?.request)
        #expect(request.header("Content-Encoding") == "gzip")
        return request.body
    }

    @Test(arguments: TransportKind.allCases, [307, 308])
    func aMethodKeepingRedirectKeepsTheBodyAndItsFields(kind: TransportKind, status: Int) async throws {
        try await withMockServer { other async throws in
            try await withMockServer { server async throws in
                let gzipped = try await Self.gzipped(kind, server)
                for hop in Hop.allCases {
                    for body in Body.allCases {
                        try await Self.check(
                            kind, status: status, hop: hop, body: body, gzipped: gzipped, server: server,
                            other: other)
                    }
                }
            }
        }
    }

    static func check(
        _ kind: TransportKind, status: Int, hop: Hop, body: Body, gzipped: [UInt8], server: MockServer,
        other: MockServer
    ) async throws {
        let what = "\(kind) \(status) \(hop) \(body)"
        let target = hop == .sameOrigin ? server : other
        let before = target.journal.entries.count
        var configuration = APIClient.Configuration(transport: kind.transport, validation: .anyStatus)
        configuration.timeout = hangGuard
        if body == .compressed { configuration.callInterceptors = [RequestCompression(.gzip)] }
        let client = APIClient(configuration: configuration)
        let node = Node("mock", baseURL: "http://127.0.0.1:\(server.port)")
        var headers: HTTPFields = [.authorization: "Bearer secret", .contentLanguage: "en"]
        headers[HTTPField.Name("X-API-Key") ?? .authorization] = "key-a"
        let content: Content
        switch body {
        case .compressed, .plain:
            content = .raw(Self.json, contentType: "application/json")
        case .compressedOneShot:
            headers[.contentEncoding] = "gzip"
            content = .body(Self.oneShot(gzipped), contentType: "application/json")
        case .plainOneShot:
            content = .body(Self.oneShot(Self.json), contentType: "application/json")
        }
        let location = "http://127.0.0.1:\(target.port)/anything"
        let endpoint = Endpoint<RawResponse>(
            .post("redirect-to"), on: node, query: ["url": .string(location), "status": .int(status)],
            content: content, headers: headers)
        let response = try await client.send(endpoint)
        #expect(response.statusCode == 200, "\(what): \(response.statusCode)")
        let arrived = try #require(
            target.journal.entries.dropFirst(before).last { $0.request.path == "/anything" }, "\(what)")
        let request = arrived.request
        let compressed = body == .compressed || body == .compressedOneShot
        let sent = compressed ? gzipped : Self.json
        #expect(request.method == "POST", "\(what)")
        #expect(request.header("Content-Type") == "application/json", "\(what): Content-Type")
        #expect(
            request.header("Content-Encoding") == (compressed ? "gzip" : nil), "\(what): Content-Encoding")
        #expect(request.header("Content-Language") == "en", "\(what): Content-Language")
        #expect(request.body == sent, "\(what): \(request.body.count) bytes, not \(sent.count)")
        if let length = request.header("Content-Length") {
            #expect(Int(length) == sent.count, "\(what): Content-Length \(length)")
        }
        let crossOrigin = hop == .crossOrigin
        #expect((request.header("Authorization") == nil) == crossOrigin, "\(what): Authorization")
        #expect((request.header("X-API-Key") == nil) == crossOrigin, "\(what): X-API-Key")
    }

    /// `bytes` as a body that can be read once, in 4 KiB chunks.
    static func oneShot(_ bytes: [UInt8]) -> RequestBody {
        let chunks = stride(from: 0, to: bytes.count, by: 4096).map {
            Array(bytes[$0..<min($0 + 4096, bytes.count)])
        }
        return RequestBody(
            length: Int64(bytes.count),
            chunks: AsyncThrowingStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            })
    }

    @Test(arguments: TransportKind.allCases, [301, 302, 303])
    func aRedirectThatBecomesAGetDropsTheBodyAndItsFields(kind: TransportKind, status: Int) async throws {
        try await withMockServer { other async throws in
            try await withMockServer { server async throws in
                for hop in Hop.allCases {
                    let target = hop == .sameOrigin ? server : other
                    let before = target.journal.entries.count
                    let client = APIClient(
                        configuration: .init(
                            transport: kind.transport, callInterceptors: [RequestCompression(.gzip)],
                            validation: .anyStatus, timeout: hangGuard))
                    let endpoint = Endpoint<RawResponse>(
                        .post("redirect-to"), on: Node("mock", baseURL: "http://127.0.0.1:\(server.port)"),
                        query: [
                            "url": .string("http://127.0.0.1:\(target.port)/anything"),
                            "status": .int(status),
                        ],
                        content: .raw(Self.json, contentType: "application/json"),
                        headers: [.contentLanguage: "en"])
                    _ = try await client.send(endpoint)
                    let request = try #require(
                        target.journal.entries.dropFirst(before).last { $0.request.path == "/anything" }
                    ).request
                    let what = "\(kind) \(status) \(hop)"
                    #expect(request.method == "GET", "\(what)")
                    #expect(request.body.isEmpty, "\(what)")
                    for name in ["Content-Type", "Content-Encoding", "Content-Language"] {
                        #expect(request.header(name) == nil, "\(what): \(name) kept")
                    }
                }
            }
        }
    }

    /// An https request redirected to http is refused, on every transport,
    /// before anything is sent to the http URL (it would travel readable).
    @Test(arguments: TransportKind.allCases)
    func httpsToHTTPIsRefused(kind: TransportKind) async throws {
        try await withMockServer { plain async throws in
            // The first hop answers with the redirect itself (a stub
            // transport standing in for the https origin: the mock speaks
            // plaintext); the hop to http goes through the real transport.
            let redirecting = RedirectingToPlain(
                inner: kind.transport, target: "http://127.0.0.1:\(plain.port)/anything")
            let secure = APIClient(configuration: .init(transport: redirecting, timeout: hangGuard))
            let error = await #expect(throws: CourierError.self) {
                try await secure.send(
                    Endpoint<RawResponse>(
                        .get("start"), on: Node("secure", baseURL: "https://secure.invalid")))
            }
            #expect(
                (error?.underlying as? TransportError)?.code == .redirectRefused,
                "\(kind): \(String(describing: error))")
            #expect(plain.journal.entries.isEmpty, "\(kind): the http URL was requested")
        }
    }
}

/// Answers its https requests with a 302 to `target` and sends the rest
/// through `inner`.
struct RedirectingToPlain: Transport {
    let inner: any Transport
    let target: String

    func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
        guard request.head.scheme == "https" else { return try await inner.send(request, options: options) }
        var fields = HTTPFields()
        fields[.location] = target
        return RawResponse(head: HTTPResponse(status: .found, headerFields: fields))
    }
}
