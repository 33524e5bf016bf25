import CourierCodable
import CourierCore
import CourierCurl
import CourierMockServer
import CourierTesting
import CourierURLSession
import Crypto
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Every transport against the mock server over real sockets.
struct TransportTests {
    static let contracts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../ContractTests/Contracts").standardizedFileURL

    func json(_ response: RawResponse) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(response.body.bytes ?? []))
        return object as? [String: Any] ?? [:]
    }

    @Test(arguments: TransportKind.allCases)
    func queryHeadersAndBodyRoundTrip(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            var headers: HTTPFields = [.contentType: "application/json"]
            headers.append(HTTPField(name: .accept, value: "a/b"))
            headers.append(HTTPField(name: .accept, value: "c/d"))
            let response = try await kind.transport.send(
                request(
                    server, "/anything?q=a%20b&x=1", method: .post, headers: headers,
                    body: RequestBody(bytes: Array(#"{"k":1}"#.utf8))),
                options: .init())
            #expect(response.statusCode == 200)
            let echo = try json(response)
            #expect(echo["method"] as? String == "POST")
            #expect(echo["args"] as? [String: String] == ["q": "a b", "x": "1"])
            #expect(echo["body"] as? String == #"{"k":1}"#)
            let entry = try #require(server.journal.entries.first)
            // URLSession joins repeated fields with a comma, which RFC 9110 §5.3 makes equivalent.
            let expected = kind == .urlSession ? ["a/b,c/d"] : ["a/b", "c/d"]
            #expect(entry.request.headerValues("Accept") == expected)
            #expect(entry.request.header("Expect") == nil)
        }
    }

    @Test(
        arguments: TransportKind.allCases,
        [HTTPRequest.Method.get, .post, .put, .patch, .delete, .options, .head])
    func everyMethod(kind: TransportKind, method: HTTPRequest.Method) async throws {
        try await withMockServer { server async throws in
            let body =
                method == .post || method == .put || method == .patch ? RequestBody(bytes: [1, 2, 3]) : nil
            let response = try await kind.transport.send(
                request(server, "/anything", method: method, body: body), options: .init())
            #expect(response.statusCode == 200)
            let entry = try #require(server.journal.entries.first)
            #expect(entry.request.method == method.rawValue)
            #expect(entry.request.body == (body == nil ? [] : [1, 2, 3]))
            if method == .head { #expect(response.body.bytes?.isEmpty == true) }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func uploadsAFileAndTheServerChecksumMatches(kind: TransportKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = (0..<(5 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let file = directory.appendingPathComponent("upload.bin")
        try Data(bytes).write(to: file)
        let progress = ProgressLog()
        try await withMockServer { server async throws in
            let response = try await kind.transport.send(
                request(server, "/upload", method: .put, body: try RequestBody(file: file)),
                options: .init(progress: { progress.record($0) }))
            let echo = try json(response)
            let digest = SHA256.hash(data: bytes).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
                .joined()
            #expect(echo["bytes"] as? Int == bytes.count)
            #expect(echo["sha256"] as? String == digest)
        }
        let uploads = progress.values.filter { $0.direction == .upload }.map(\.completed)
        #expect(uploads == uploads.sorted())
        #expect(uploads.last == Int64(bytes.count))
    }

    @Test(arguments: TransportKind.allCases)
    func downloadsToAFile(kind: TransportKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = DownloadDestination(directory.appendingPathComponent("nested/bytes.bin"))
        try await withMockServer { server async throws in
            let response = try await kind.transport.send(
                request(server, "/bytes/3000000"), options: .init(destination: destination))
            #expect(response.body == .file(destination.url))
            let written = try Data(contentsOf: destination.url)
            let reference = try await kind.transport.send(
                request(server, "/bytes/3000000"), options: .init())
            #expect(written.count == 3_000_000)
            #expect(Array(written) == reference.body.bytes)
            #expect(response.metrics.bytesReceived == 3_000_000)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func gzipAndChunkedBodiesAreDecoded(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let gzip = try await kind.transport.send(request(server, "/gzip"), options: .init())
            #expect(try json(gzip)["path"] as? String == "/gzip")
            let stream = try await kind.transport.send(request(server, "/stream/5"), options: .init())
            #expect(
                String(decoding: stream.body.bytes ?? [], as: UTF8.self).split(separator: "\n").count == 5)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func keepAliveReusesTheConnection(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            try await kind.withFresh { transport async throws in
                var reused: [Bool?] = []
                for _ in 0..<3 {
                    reused.append(
                        try await transport.send(request(server, "/status/204"), options: .init()).metrics
                            .connectionReused)
                }
                // URLSession on Linux does not report reuse; the journal shows it for both.
                if kind == .curl { #expect(reused == [false, true, true]) }
                #expect(Set(server.journal.entries.map(\.connectionIndex)).count == 1)
                #expect(server.journal.entries.map(\.exchangeIndex) == [1, 2, 3])
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func stallTimesOutAndCancellationStopsATransfer(kind: TransportKind) async throws {
        let stubs = try ContractLoader.parse(
            Array(
                #"{"id": "s", "request": {"urlPathPattern": "/s[0-9]"}, "response": {"fault": "stall"}}"#.utf8
            ),
            file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            do {
                _ = try await kind.transport.send(
                    request(server, "/s1"), options: .init(timeout: .milliseconds(300)))
                Issue.record("a stalled response succeeded")
            } catch let error as TransportError {
                #expect(error.code == .timedOut)
            }
            let pending = Task {
                try await kind.transport.send(request(server, "/s2"), options: .init())
            }
            // Under load the first request may time out before it reaches the server.
            _ = try await server.journal.waitFor(1) { $0.request.path == "/s2" }
            pending.cancel()
            do {
                _ = try await pending.value
                Issue.record("a cancelled transfer succeeded")
            } catch let error as TransportError {
                #expect(error.code == .cancelled)
            }
            // The transport is still usable.
            #expect(
                try await kind.transport.send(request(server, "/status/200"), options: .init())
                    .statusCode == 200)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func manyConcurrentRequests(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<300 {
                    group.addTask {
                        try await kind.transport.send(
                            request(server, "/status/\(200 + index % 3)"), options: .init()
                        ).statusCode
                    }
                }
                var all: [Int] = []
                for try await status in group { all.append(status) }
                return all
            }
            #expect(statuses.count == 300)
            #expect(Set(statuses) == [200, 201, 202])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func theWholePipelineAgainstTheContracts(kind: TransportKind) async throws {
        struct User: Decodable, Sendable {
            let id: Int
            let name: String
        }
        struct Order: Decodable, Sendable { let id: Int }
        try await withMockServer(.init(contracts: Self.contracts)) { server async throws in
            let node = Node("shop", baseURL: server.baseURL + "/api", envelope: .standard)
            let clock = TestClock()
            let client = APIClient(
                transport: kind.transport, decoder: .codable,
                retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none), clock: clock)
            let user = try await client.send(Endpoint<User>(.get("users/\(7)"), on: node))
            #expect(user.name == "Ada Lovelace")
            do {
                _ = try await client.send(Endpoint<Order>(.get("orders/\(42)"), on: node))
                Issue.record("a business failure decoded")
            } catch let error as CourierError {
                #expect(error.businessFailure?.code == 4003)
            }
            // A fresh transport: on a reused keep-alive connection libcurl itself
            // resends a request that met a reset before any response byte.
            let fresh = try CurlTransport()
            let flaky = APIClient(
                transport: fresh, decoder: .codable, retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none),
                clock: clock)
            let reply = try await flaky.response(
                Endpoint<[Order]>(.get("orders"), on: node, query: ["limit": 2]))
            await fresh.shutdown()
            #expect(reply.model.map(\.id) == [1, 2])
            #expect(reply.attempts == 3)
            let attempts = server.journal.entries(stub: "recent-orders-flaky")
            #expect(attempts.count == 3)
            #expect(attempts[1].connectionIndex != attempts[0].connectionIndex)
            #expect(clock.sleeps.count == 2)
            try server.verify()
        }
    }
}

final class ProgressLog: Sendable {
    private let storage = Mutex<[TransferProgress]>([])
    func record(_ progress: TransferProgress) { storage.withLock { $0.append(progress) } }
    var values: [TransferProgress] { storage.withLock { $0 } }
}

/// The transports every conformance test runs over.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case curl
    case urlSession

    var testDescription: String { rawValue }

    /// The shared transport of this kind.
    var transport: any Transport {
        switch self {
        case .curl: CurlTransport.shared
        case .urlSession: URLSessionTransport.shared
        }
    }

    /// A new transport with no open connections, shut down by `body`'s end.
    func withFresh<T: Sendable>(
        redirects: RedirectPolicy = .follow, _ body: (any Transport) async throws -> T
    ) async throws -> T {
        switch self {
        case .curl:
            return try await withCurlTransport(configuration: .init(redirects: redirects)) {
                try await body($0)
            }
        case .urlSession:
            let transport = URLSessionTransport(redirects: redirects)
            defer { transport.shutdown() }
            return try await body(transport)
        }
    }
}
