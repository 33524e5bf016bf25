import CourierCodable
import CourierCore
import CourierMockServer
import CourierMultipart
import Foundation
import Testing

/// JSON, form and multipart bodies, built by the pipeline and sent by each
/// transport, as the server parsed them.
struct BodyTests {
    struct Echo: Decodable, Sendable {
        struct File: Decodable, Sendable, Equatable {
            let filename: String
            let contentType: String?
            let size: Int
            let sha256: String
        }

        let method: String
        /// The request target as the server read it.
        let url: String
        /// The body as the server read it, when it is text.
        let body: String?
        let headers: [[String]]
        let json: [String: JSONScalar]?
        let form: [String: String]?
        let files: [String: File]?

        func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }?.last
        }
    }

    /// A JSON scalar as the echo shows it.
    enum JSONScalar: Decodable, Sendable, Equatable {
        case int(Int)
        case string(String)
        case bool(Bool)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Int.self) {
                self = .int(value)
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    func client(_ kind: TransportKind) -> APIClient {
        APIClient(configuration: .init(transport: kind.transport, decoder: .codable, timeout: hangGuard))
    }

    @Test(arguments: TransportKind.allCases)
    func jsonBody(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let node = Node("mock", baseURL: server.baseURL)
            let echo = try await client(kind).send(
                Endpoint<Echo>(
                    .post("anything"), on: node, content: .json(["name": "Ada", "age": 36, "admin": true])))
            #expect(echo.json == ["name": .string("Ada"), "age": .int(36), "admin": .bool(true)])
            #expect(echo.header("Content-Type")?.hasPrefix("application/json") == true)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func formBody(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let node = Node("mock", baseURL: server.baseURL)
            let echo = try await client(kind).send(
                Endpoint<Echo>(
                    .post("anything"), on: node, content: .form(["q": "a b&c=d", "emoji": "é✓"])))
            #expect(echo.form == ["q": "a b&c=d", "emoji": "é✓"])
            #expect(echo.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
        }
    }

    /// A form body and a query from `Encodable` values (`ParametersEncoder`):
    /// the bytes the server read, not what Courier says it sent.
    @Test(arguments: TransportKind.allCases)
    func encodableFormAndQuery(kind: TransportKind) async throws {
        struct Filter: Encodable, Sendable {
            let pageSize: Int
            let tags: [String]
            let since: Date
            let note: String?
            let exact: Bool
        }
        let filter = Filter(
            pageSize: 20, tags: ["a", "b c"], since: Date(timeIntervalSince1970: 1_700_000_000), note: nil,
            exact: true)
        let encoder = ParametersEncoder(keys: .convertToSnakeCase)
        try await withMockServer { server async throws in
            let node = Node("mock", baseURL: server.baseURL)
            let endpoint = try Endpoint<Echo>(
                .post("anything"), on: node, content: .form(from: filter, encoder: encoder)
            )
            .adding(queryFrom: filter, encoder: encoder)
            let echo = try await client(kind).send(endpoint)
            let fields =
                "page_size=20&tags%5B%5D=a&tags%5B%5D=b%20c&since=2023-11-14T22%3A13%3A20Z&exact=true"
            #expect(echo.url == "/anything?" + fields)
            #expect(echo.body == fields)
            #expect(echo.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func multipartBodyWithAFileStreamedFromDisk(kind: TransportKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("multipart-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 7) }
        let url = directory.appendingPathComponent("beach.jpg")
        try Data(photo).write(to: url)
        var form = MultipartForm()
        form.append(field: "title", value: "Holiday \"2026\"")
        form.append(file: url, name: "photo", contentType: "image/jpeg")
        form.append(data: Array("x,y\n1,2\n".utf8), name: "table", filename: "t.csv", contentType: "text/csv")
        try await withMockServer { server async throws in
            let node = Node("mock", baseURL: server.baseURL)
            let echo = try await client(kind).send(
                Endpoint<Echo>(.put("anything"), on: node, content: .multipart(form)))
            #expect(echo.method == "PUT")
            #expect(echo.form == ["title": "Holiday \"2026\""])
            let digest = SHA256Digest.hex(of: photo)
            #expect(
                echo.files?["photo"]
                    == Echo.File(
                        filename: "beach.jpg", contentType: "image/jpeg", size: photo.count, sha256: digest))
            #expect(echo.files?["table"]?.size == 8)
            let entry = try #require(server.journal.entries.first)
            #expect(entry.request.header("Content-Length") == "\(entry.request.body.count)")
        }
    }

    /// A part from an `AsyncSequence` of unknown length (ACINetworking's
    /// `InputStream` part): the form goes out chunked, its length never
    /// asked for, and the server parses every part whole.
    @Test(arguments: TransportKind.allCases)
    func multipartWithAStreamedPartOfUnknownLength(kind: TransportKind) async throws {
        let chunks = (0..<24).map { index in (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
        }
        var form = MultipartForm()
        form.append(field: "title", value: "nightly log")
        form.append(
            stream: AsyncThrowingStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }, name: "log", filename: "app.log", contentType: "text/plain")
        form.append(data: Array("done".utf8), name: "trailer")
        try await withMockServer { server async throws in
            let node = Node("mock", baseURL: server.baseURL)
            // Redirects not followed: nothing may have to send the body again,
            // so it is streamed as it is read (with `.follow` it is read whole
            // first, up to the largest body, for a 307 or 308).
            var configuration = client(kind).configuration
            configuration.redirects = .never
            let echo = try await APIClient(configuration: configuration).send(
                Endpoint<Echo>(.post("anything"), on: node, content: .multipart(form)))
            #expect(echo.form == ["title": "nightly log", "trailer": "done"])
            let sent = chunks.flatMap { $0 }
            #expect(
                echo.files?["log"]
                    == Echo.File(
                        filename: "app.log", contentType: "text/plain", size: sent.count,
                        sha256: SHA256Digest.hex(of: sent)))
            // The wire, as the server's record has it. AsyncHTTPClient streams
            // the body chunked, no length; libcurl reads a body synchronously on
            // its own thread and URLSession uploads Data or a file, so those two
            // transports gather it first (at most maxBodySize) and send a length.
            let entry = try #require(server.journal.entries.first)
            if kind == .asyncHTTPClient {
                #expect(entry.request.header("Transfer-Encoding")?.lowercased() == "chunked")
                #expect(entry.request.header("Content-Length") == nil)
            } else {
                #expect(entry.request.header("Content-Length") == "\(entry.request.body.count)")
            }
        }
    }
}
