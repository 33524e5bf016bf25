import CourierAsyncHTTPClient
import CourierCodable
@_spi(Transport) import CourierCore
import CourierCurl
import CourierMockServer
import CourierTesting
import CourierURLSession
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import Synchronization
import Testing

/// Every transport against the mock server over real sockets.
struct TransportTests {
    static let contracts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Contracts").standardizedFileURL

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
                options: .guarded)
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
                request(server, "/anything", method: method, body: body), options: .guarded)
            #expect(response.statusCode == 200)
            let entry = try #require(server.journal.entries.first)
            #expect(entry.request.method == method.rawValue)
            #expect(entry.request.body == (body == nil ? [] : [1, 2, 3]))
            if method == .head { #expect(response.body.bytes?.isEmpty == true) }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func nothingCarriesOverFromOneRequestToTheNext(kind: TransportKind) async throws {
        // One connection, so one reused handle serves every request in turn.
        try await withMockServer { server async throws in
            try await kind.withFresh { transport async throws in
                let sequence: [(HTTPRequest.Method, [UInt8]?, HTTPFields)] = [
                    (.put, [1, 2, 3], [.contentType: "application/octet-stream"]),
                    (.head, nil, [:]), (.get, nil, [:]),
                    (.post, nil, [HTTPField.Name("X-Once") ?? .accept: "x/y"]),
                    (.delete, nil, [:]), (.get, nil, [:]),
                ]
                for (method, body, headers) in sequence {
                    let response = try await transport.send(
                        request(
                            server, "/anything", method: method, headers: headers,
                            body: body.map(RequestBody.init(bytes:))),
                        options: .guarded)
                    #expect(response.statusCode == 200)
                }
                let entries = server.journal.entries
                #expect(entries.map(\.request.method) == sequence.map(\.0.rawValue))
                #expect(entries.map(\.request.body) == sequence.map { $0.1 ?? [] })
                #expect(entries.map { $0.request.header("X-Once") } == [nil, nil, nil, "x/y", nil, nil])
                #expect(
                    entries.map { $0.request.header("Content-Type") != nil } == [
                        true, false, false, false, false, false,
                    ])
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func downloadsToAFile(kind: TransportKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = DownloadTarget(directory.appendingPathComponent("nested/bytes.bin"))
        try await withMockServer { server async throws in
            let response = try await kind.transport.send(
                request(server, "/bytes/3000000"), options: .init(destination: destination))
            #expect(response.body == .file(destination.url))
            let written = try Data(contentsOf: destination.url)
            let reference = try await kind.transport.send(
                request(server, "/bytes/3000000"), options: .guarded)
            #expect(written.count == 3_000_000)
            #expect(Array(written) == reference.body.bytes)
            #expect(response.metrics.bytesReceived == 3_000_000)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aPostWithABodyDownloadsToAFile(kind: TransportKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("post-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = DownloadTarget(directory.appendingPathComponent("echo.json"))
        try await withMockServer { server async throws in
            _ = try await kind.transport.send(
                request(server, "/anything", method: .post, body: RequestBody(bytes: Array("ping".utf8))),
                options: .init(destination: destination))
            let echo =
                try JSONSerialization.jsonObject(with: Data(contentsOf: destination.url)) as? [String: Any]
            #expect(echo?["body"] as? String == "ping")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func oneShotStreamBodiesAreSentWhole(kind: TransportKind) async throws {
        let chunks = (0..<40).map { index in [UInt8](repeating: UInt8(index), count: 50_000) }
        try await withMockServer { server async throws in
            let body = RequestBody(
                length: nil,
                chunks: AsyncThrowingStream { continuation in
                    for chunk in chunks { continuation.yield(chunk) }
                    continuation.finish()
                })
            // A hang guard as the deadline: URLSession's own 60 s went by
            // under ThreadSanitizer on a machine loaded by `stress`.
            let response = try await kind.transport.send(
                request(server, "/upload", method: .post, body: body), options: .init(timeout: .seconds(600)))
            #expect(try json(response)["bytes"] as? Int == 2_000_000)
            let entry = try #require(server.journal.entries.first)
            // Compared as one Bool: a diff of two 2 MB arrays takes Swift Testing minutes.
            let received = entry.request.body
            let same = received == chunks.flatMap { $0 }
            #expect(
                same,
                "\(received.count) bytes arrived, first difference at \(Self.firstDifference(received, chunks))"
            )
        }
    }

    /// Where `received` first differs from the chunks joined, as `chunk:offset`.
    static func firstDifference(_ received: [UInt8], _ chunks: [[UInt8]]) -> String {
        let sent = chunks.flatMap { $0 }
        guard let index = (0..<min(received.count, sent.count)).first(where: { received[$0] != sent[$0] })
        else {
            return "the end (\(received.count) of \(sent.count))"
        }
        return "\(index / 50_000):\(index % 50_000)"
    }

    @Test(arguments: TransportKind.allCases)
    func gzipAndChunkedBodiesAreDecoded(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let gzip = try await kind.transport.send(request(server, "/gzip"), options: .guarded)
            #expect(try json(gzip)["path"] as? String == "/gzip")
            let stream = try await kind.transport.send(request(server, "/stream/5"), options: .guarded)
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
                        try await transport.send(request(server, "/status/204"), options: .guarded).metrics
                            .connectionReused)
                }
                // URLSession on Linux does not report reuse; the journal shows it for both.
                if kind.isCurl { #expect(reused == [false, true, true]) }
                #expect(Set(server.journal.entries.map(\.connectionIndex)).count == 1)
                #expect(server.journal.entries.map(\.exchangeIndex) == [1, 2, 3])
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func noHeaderInjectionReachesTheWire(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            // HTTPTypes turns CR, LF and NUL into spaces when a field is made,
            // so an injected line can never be represented, let alone sent.
            var headers = HTTPFields()
            headers.append(HTTPField(name: .authorization, value: "Bearer a\r\nX-Injected: 1\u{0}"))
            let response = try await kind.transport.send(
                request(server, "/anything", headers: headers), options: .guarded)
            #expect(response.statusCode == 200)
            let entry = try #require(server.journal.entries.first)
            #expect(entry.request.header("X-Injected") == nil)
            #expect(entry.request.header("Authorization")?.hasPrefix("Bearer a") == true)
            #expect(entry.request.header("Authorization")?.contains("X-Injected: 1") == true)
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
            await expectTransportError(.timedOut, "a stalled response") {
                try await kind.transport.send(
                    request(server, "/s1"), options: .init(timeout: .milliseconds(300)))
            }
            let pending = Task {
                try await kind.transport.send(request(server, "/s2"), options: .guarded)
            }
            // Under load the first request may time out before it reaches the server.
            _ = try await server.journal.waitFor(1) { $0.request.path == "/s2" }
            pending.cancel()
            await expectTransportError(.cancelled, "a cancelled transfer") { try await pending.value }
            // The transport is still usable.
            #expect(
                try await kind.transport.send(request(server, "/status/200"), options: .guarded)
                    .statusCode == 200)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func fiveHundredConcurrentRequests(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<500 {
                    group.addTask {
                        try await kind.transport.send(
                            request(server, "/status/\(200 + index % 3)"), options: .guarded
                        ).statusCode
                    }
                }
                var all: [Int] = []
                for try await status in group { all.append(status) }
                return all
            }
            #expect(statuses.count == 500)
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
                configuration: .init(
                    transport: kind.transport, decoder: .codable,
                    retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none), timeout: hangGuard, clock: clock)
            )
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
            // Its own clock: its two retry waits are what is counted, whatever
            // a loaded machine made the calls above do.
            let fresh = try CurlTransport()
            let flakyClock = TestClock()
            let flaky = APIClient(
                configuration: .init(
                    transport: fresh, decoder: .codable,
                    retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none),
                    timeout: hangGuard, clock: flakyClock))
            let reply = try await flaky.response(
                Endpoint<[Order]>(.get("orders"), on: node, query: ["limit": 2]))
            await fresh.shutdown()
            #expect(reply.model.map(\.id) == [1, 2])
            #expect(reply.attempts == 3)
            let attempts = server.journal.entries(stub: "recent-orders-flaky")
            #expect(attempts.count == 3)
            #expect(attempts[1].connectionIndex != attempts[0].connectionIndex)
            #expect(flakyClock.sleeps.count == 2)
            try server.verify()
        }
    }
}

final class ProgressLog: Sendable {
    private let storage = NIOLockedValueBox<[TransferProgress]>([])
    func record(_ progress: TransferProgress) { storage.withLockedValue { $0.append(progress) } }
    var values: [TransferProgress] { storage.withLockedValue { $0 } }
}

/// The transports every conformance test runs over.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// CurlTransport as configured by default: the epoll loop on Linux.
    case curl
    /// CurlTransport with the poll loop (`curl_multi_poll`), which stays selectable.
    case curlPollLoop
    case urlSession
    case asyncHTTPClient

    /// Every transport, or only those named in `COURIER_TRANSPORTS`
    /// (`curl,curlPollLoop,urlSession,asyncHTTPClient`): scripts/check-asan checks
    /// CourierCurl for leaks on its own, without FoundationNetworking's.
    ///
    /// A name that is no transport's stops the run: a mistyped list would
    /// otherwise run every per-transport test over no transport at all.
    static var allCases: [TransportKind] {
        let every: [TransportKind] = [.curl, .curlPollLoop, .urlSession, .asyncHTTPClient]
        guard let list = ProcessInfo.processInfo.environment["COURIER_TRANSPORTS"] else { return every }
        let chosen = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let unknown = chosen.filter { name in !every.contains { $0.rawValue == name } }
        guard unknown.isEmpty, !chosen.isEmpty else {
            fatalError(
                "COURIER_TRANSPORTS=\(list) names no transport in \(unknown); "
                    + "use \(every.map(\.rawValue).joined(separator: ","))")
        }
        return every.filter { kind in chosen.contains(kind.rawValue) }
    }

    /// Those of `kinds` that ``allCases`` includes: for a test that runs
    /// over some transports only, still limited by `COURIER_TRANSPORTS`.
    static func among(_ kinds: TransportKind...) -> [TransportKind] { kinds.filter(allCases.contains) }

    var testDescription: String { rawValue }

    /// Either CurlTransport loop.
    var isCurl: Bool { self == .curl || self == .curlPollLoop }

    /// The poll-loop CurlTransport the `curlPollLoop` tests share.
    private static let pollLoopCurl: CurlTransport = {
        do {
            return try CurlTransport(configuration: .init(eventLoop: .poll))
        } catch {
            preconditionFailure("libcurl could not be initialised: \(error)")
        }
    }()

    /// The shared transport of this kind.
    var transport: any Transport {
        switch self {
        case .curl: CurlTransport.shared
        case .curlPollLoop: Self.pollLoopCurl
        case .urlSession: URLSessionTransport.shared
        case .asyncHTTPClient: Self.sharedAsyncHTTPClient
        }
    }

    /// async-http-client's transport for these suites, with a connect
    /// timeout (also its wait for a pooled connection) that a loaded machine
    /// cannot miss: every suite at once under ThreadSanitizer on two cores
    /// starved a 10 s one. What the tests time is each call's own deadline.
    private static let sharedAsyncHTTPClient: AsyncHTTPClientTransport = {
        do {
            return try AsyncHTTPClientTransport(configuration: .init(connectTimeout: .seconds(120)))
        } catch {
            preconditionFailure("async-http-client could not be set up: \(error)")
        }
    }()

    /// A new transport with no open connections, shut down by `body`'s end;
    /// `maxConnectionsPerHost` `nil` keeps the transport's default.
    func withFresh<T: Sendable>(
        maxConnectionsPerHost: Int? = nil,
        _ body: (any Transport) async throws -> T
    ) async throws -> T {
        switch self {
        case .curl, .curlPollLoop:
            var configuration = CurlTransport.Configuration(eventLoop: self == .curl ? .automatic : .poll)
            if let maxConnectionsPerHost { configuration.maxConnectionsPerHost = maxConnectionsPerHost }
            return try await withCurlTransport(configuration: configuration) { try await body($0) }
        case .urlSession:
            let transport =
                if let maxConnectionsPerHost {
                    URLSessionTransport(maxConnectionsPerHost: maxConnectionsPerHost)
                } else {
                    URLSessionTransport()
                }
            defer { transport.shutdown() }
            return try await body(transport)
        case .asyncHTTPClient:
            var configuration = AsyncHTTPClientTransport.Configuration(connectTimeout: .seconds(120))
            if let maxConnectionsPerHost { configuration.maxConnectionsPerHost = maxConnectionsPerHost }
            return try await withAsyncHTTPClientTransport(configuration: configuration) { try await body($0) }
        }
    }
}
