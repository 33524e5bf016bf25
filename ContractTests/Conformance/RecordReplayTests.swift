import CourierCodable
import CourierCore
import CourierCurl
import CourierMockServer
import Foundation
import HTTPTypes
import Testing

/// courier-mock as a recording proxy: a run of Courier calls recorded
/// against a second courier-mock (standing in for the real API), written as
/// contract files with no secret in them, replayed by a third, answers the
/// same calls the same way — over CourierCurl and URLSession; and recording
/// an https API behind a private CA.
struct RecordReplayTests {
    static let api = #"""
        {"mappings": [
          {"id": "login", "request": {"method": "POST", "urlPath": "/login",
             "bodyPatterns": [{"containsJson": {"user": "ada"}}]},
           "response": {"jsonBody": {"user": "ada", "token": "tok-live-5f2c9a"},
             "headers": {"Set-Cookie": "session=abc123; Path=/; HttpOnly"}}},
          {"id": "me", "request": {"method": "GET", "urlPath": "/me",
             "headers": {"Authorization": {"equalTo": "Bearer tok-live-5f2c9a"}}},
           "response": {"jsonBody": {"name": "Ada Lovelace"}}},
          {"id": "search", "request": {"method": "GET", "urlPath": "/search",
             "queryParameters": {"q": {"equalTo": "analytical engine"}}},
           "response": {"jsonBody": {"results": [1, 2, 3]}}},
          {"id": "counter", "request": {"method": "GET", "urlPath": "/counter"},
           "responses": [{"jsonBody": {"n": 1}}, {"jsonBody": {"n": 2}}], "exhausted": "repeatLast"},
          {"id": "moved", "request": {"method": "GET", "urlPath": "/moved"},
           "response": {"status": 302,
             "headers": {"Location": "/search?q=analytical%20engine&sig=sig-loc-3c8d"}}},
          {"id": "big", "request": {"method": "GET", "urlPath": "/big"},
           "response": {"body": "\#(String(repeating: "0123456789", count: 2000))"}}
        ]}
        """#

    struct Session: Decodable, Sendable {
        let user: String
        let token: String
    }
    struct Profile: Decodable, Sendable { let name: String }
    struct Results: Decodable, Sendable { let results: [Int] }
    struct Count: Decodable, Sendable { let n: Int }

    /// The calls a client makes, and what it made of the answers (the token
    /// itself is left out: it is a secret, and the recording replaces it).
    static func calls(_ client: APIClient, _ base: String) async throws -> [String] {
        let node = Node("api", baseURL: base)
        let session = try await client.send(
            Endpoint<Session>(
                .post("login"), on: node, content: .json(["user": "ada", "password": "s3cret-pw"])))
        var signed = Endpoint<Profile>(.get("me"), on: node)
        signed.headers[.authorization] = "Bearer \(session.token)"
        let profile = try await client.send(signed)
        var search = Endpoint<Results>(.get("search"), on: node)
        search.query = ["q": "analytical engine", "api_key": "key-live-77e1"]
        let results = try await client.send(search)
        // A redirect whose target carries a signature.
        let moved = try await client.send(Endpoint<Results>(.get("moved"), on: node))
        let first = try await client.send(Endpoint<Count>(.get("counter"), on: node))
        let second = try await client.send(Endpoint<Count>(.get("counter"), on: node))
        let big = try await client.send(Endpoint<RawResponse>(.get("big"), on: node))
        return [
            session.user, profile.name, "\(results.results)", "\(moved.results)", "\(first.n)", "\(second.n)",
            "\(big.body.bytes?.count ?? 0)",
        ]
    }

    @Test(arguments: TransportKind.among(.curl, .urlSession))
    func aRecordedRunReplaysTheSame(kind: TransportKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("recorded-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = try ContractLoader.parse(Array(Self.api.utf8), file: "<api>")
        try await kind.withFresh { transport async throws in
            let client = APIClient(
                configuration: .init(transport: transport, decoder: .codable, timeout: hangGuard))
            let live = try await withMockServer(.init(stubs: stubs)) { real async throws in
                let recorder = try await MockServer.start(
                    .init(recording: RecordingOptions(target: real.baseURL, timeout: hangGuard)))
                let results = try await Self.calls(client, recorder.baseURL)
                let written = try recorder.writeRecording(to: directory)
                #expect(recorder.recordedExchanges == 8)
                // The two counter calls are one file, a sequence; the search
                // the redirect led to has a signature, so a file of its own.
                #expect(written.count == 7)
                await recorder.stop()
                return results
            }
            #expect(live == ["ada", "Ada Lovelace", "[1, 2, 3]", "[1, 2, 3]", "1", "2", "20000"])
            // No secret reached the files; the large body went to __files/.
            var text = ""
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
            where name.hasSuffix(".json") {
                text += try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            }
            for secret in ["tok-live-5f2c9a", "s3cret-pw", "abc123", "key-live-77e1", "sig-loc-3c8d"] {
                #expect(!text.contains(secret), "\(secret) reached the recording")
            }
            #expect(text.contains("REDACTED"))
            #expect(text.contains("\"present\":true"))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("__files").path))
            let replayed = try await withMockServer(.init(contracts: directory)) { replay async throws in
                try await Self.calls(client, replay.baseURL)
            }
            #expect(replayed == live)
        }
    }

    /// `GET /status` through a recording server.
    static func status(through server: MockServer) async throws -> RawResponse {
        let head = HTTPRequest(
            method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/status")
        return try await CurlTransport.shared.send(OutgoingRequest(head: head), options: .guarded)
    }

    @Test func recordingAnHTTPSAPIBehindAPrivateCA() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            let target = "https://127.0.0.1:\(port)"
            let trusting = try await MockServer.start(
                .init(recording: RecordingOptions(target: target, caFile: fixture.caPath, timeout: hangGuard))
            )
            let answer = try await Self.status(through: trusting)
            #expect(answer.statusCode == 200)
            #expect(trusting.recordedExchanges == 1)
            await trusting.stop()
            // Without the CA the target's certificate is refused: 502, nothing recorded.
            let refusing = try await MockServer.start(.init(recording: RecordingOptions(target: target)))
            let refused = try await Self.status(through: refusing)
            #expect(refused.statusCode == 502)
            #expect(refusing.recordedExchanges == 0)
            await refusing.stop()
        }
    }
}
