import CourierCodable
@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import Testing

@testable import CourierPlugins

struct LoggingPluginTests {
    @Test func summariesAtInfoHeadersAtDebugBodiesAtTrace() async throws {
        let (logger, log) = capturingLogger()
        let origin = Origin { _, _ in
            .json(#"{"id": 7, "name": "Ada"}"#, headers: [HTTPField.Name("X-Trace")!: "abc"])
        }
        let client = APIClient(
            transport: origin.transport, decoder: .codable, plugins: [LoggingPlugin(logger: logger)])
        _ = try await client.send(Endpoint<User>(.post("users"), on: .api, content: .json(["name": "Ada"])))
        let lines = log.entries.map { "\($0.level) \($0.message)" }
        #expect(lines.count == 6)
        #expect(lines[0] == "info → POST https://api.example.com/v1/users, body 14 B")
        #expect(lines[1] == "debug → headers: Content-Type: application/json")
        #expect(
            lines[2].hasPrefix(
                "trace → curl -X POST 'https://api.example.com/v1/users' -H 'Content-Type: application/json' --data-binary '{\"name\":\"Ada\"}'"
            ))
        #expect(lines[3] == "info ← 200 POST users in 0.0 ms, 24 B")
        #expect(lines[4] == "debug ← headers: Content-Type: application/json; X-Trace: abc")
        #expect(lines[5] == #"trace ← body: {"id": 7, "name": "Ada"}"#)
        let metadata = try #require(log.entries.last?.metadata)
        #expect(metadata["courier.status"] == "200" && metadata["courier.endpoint"] == "POST users")
        // The call and attempt are in the metadata, once, not again in the message.
        #expect(metadata["courier.attempt"] == "1" && metadata["courier.call"] != nil)
        #expect(log.entries.allSatisfy { !$0.message.description.contains("[call") })
    }

    @Test func retriesAndRedirectsFromTheCallsEvents() async throws {
        let (logger, log) = capturingLogger()
        let origin = Origin { head, number in
            switch (head.path, number) {
            case ("/v1/old", 1): .status(503)
            case ("/v1/old", _): .status(301, headers: [.location: "/v1/new?token=s3cret"])
            default: .json(#"{"id": 7, "name": "Ada"}"#)
            }
        }
        let client = APIClient(
            transport: origin.transport, decoder: .codable, plugins: [LoggingPlugin(logger: logger)],
            retryPolicy: RetryPolicy(maxAttempts: 2, backoff: .constant(.milliseconds(250)), jitter: .none),
            clock: TestClock())
        _ = try await client.send(Endpoint<User>(.get("old"), on: .api))
        let lines = log.entries.map { "\($0.level) \($0.message)" }
        #expect(lines.contains("info ↻ GET old: retry in 250.0 ms after status"))
        #expect(lines.contains("debug ↪ 301 → GET https://api.example.com/v1/new?token=***"))
    }

    @Test func theLoggersLevelDecides() async throws {
        let (base, log) = capturingLogger()
        var logger = base
        logger.logLevel = .info
        let client = APIClient(
            transport: Origin().transport, decoder: .codable, plugins: [LoggingPlugin(logger: logger)])
        _ = try await client.send(Endpoint<User>(.get("me"), on: .api))
        #expect(log.entries.map(\.level) == [.info, .info])
    }

    @Test func failuresAreLoggedByTheirDescription() async throws {
        let (logger, log) = capturingLogger()
        let origin = Origin { _, _ in .json(#"{"error": "nope"}"#, status: 404) }
        let client = APIClient(
            transport: origin.transport, decoder: .codable, plugins: [LoggingPlugin(logger: logger)])
        _ = try? await client.send(Endpoint<User>(.get("users/\(7, name: "id")"), on: .api))
        // The attempt got a 404 from the transport; the call failed validation.
        #expect(log.entries.contains { "\($0.message)".hasPrefix("← 404 GET users/{id}") })
        let failure = try #require(log.entries.first { "\($0.message)".hasPrefix("✗ GET users/{id} failed") })
        #expect("\(failure.message)".contains("status error at validation"))
        #expect(failure.metadata["courier.error"] == "status")
        // A failed call is about every attempt: no `courier.attempt=0`.
        #expect(failure.metadata["courier.attempt"] == nil && failure.metadata["courier.call"] != nil)
        #expect(log.entries.contains { "\($0.message)" == #"← body: {"error": "nope"}"# })
    }

    /// A 200 whose body is not the model: the log does not stop at `← 200`.
    @Test func aBodyThatDoesNotDecodeIsLoggedAsTheCallsFailure() async throws {
        let (logger, log) = capturingLogger()
        let origin = Origin { _, _ in .json(#"{"id": "seven"}"#) }
        let client = APIClient(
            transport: origin.transport, decoder: .codable, plugins: [LoggingPlugin(logger: logger)])
        _ = try? await client.send(Endpoint<User>(.get("me"), on: .api))
        let failure = try #require(log.entries.first { "\($0.message)".hasPrefix("✗ GET me failed") })
        #expect("\(failure.message)".contains("decoding error at decoding"))
        #expect(failure.metadata["courier.error"] == "decoding")
    }

    /// A call its task cancelled is logged as cancelled, not as a failure.
    @Test func aCancelledCallIsNotLoggedAsFailed() async throws {
        let (logger, log) = capturingLogger()
        let transport = HeldTransport()
        let client = APIClient(
            transport: transport, decoder: .codable, plugins: [LoggingPlugin(logger: logger)])
        let call = Task { try await client.send(Endpoint<User>(.get("me"), on: .api)) }
        await transport.waitForArrivals(1)
        call.cancel()
        _ = try? await call.value
        let messages = log.entries.map { "\($0.message)" }
        #expect(messages.contains("■ GET me cancelled"))
        #expect(!messages.contains { $0.contains("failed") })
    }

    /// Random secrets in every place a secret goes: never in what the plugin
    /// writes, a curl command or an error description, while the server
    /// received every one of them.
    @Test(arguments: 1...40)
    func noSecretEverReachesTheLog(seed: UInt64) async throws {
        var random = SplitMix(seed: seed)
        let secrets = (0..<9).map { _ in "S3CR" + random.word(length: 16) }
        let (logger, log) = capturingLogger()
        let origin = Origin { head, _ in
            head.path?.contains("denied") == true
                ? .json(#"{"code": 401, "token": "\#(secrets[8])"}"#, status: 401)
                : .json(
                    #"{"id": 7, "name": "Ada", "access_token": "\#(secrets[7])"}"#,
                    headers: [.setCookie: "session=\(secrets[6]); HttpOnly"])
        }
        let userinfo = ClosureInterceptor(name: "userinfo") { request, _, next in
            var request = request
            request.head.authority = "ada:\(secrets[5])@api.example.com"
            return try await next(request)
        }
        let client = APIClient(
            transport: origin.transport, decoder: .codable, attemptInterceptors: [userinfo],
            plugins: [AccessTokenPlugin { _, _ in secrets[0] }, LoggingPlugin(logger: logger)])
        let headers: HTTPFields = [.cookie: "sid=\(secrets[1])", HTTPField.Name("X-API-Key")!: secrets[2]]
        let login = Endpoint<User>(
            .post("login"), on: .api, query: ["token": .string(secrets[3]), "page": 1],
            content: .json(["user": "ada", "password": .string(secrets[4])]), headers: headers)
        let form = Endpoint<User>(.post("form"), on: .api, content: .form(["secret": .string(secrets[4])]))
        _ = try await client.send(login)
        _ = try await client.send(form)
        var described = ""
        do {
            _ = try await client.send(
                Endpoint<User>(.get("denied"), on: .api, query: ["access_token": .string(secrets[3])]))
        } catch {
            described = error.description
        }
        // Everything the plugin wrote, a curl command of the request, the error's description.
        let sent = try #require(origin.requests.first)
        let written = [
            log.everything, described,
            CurlCommand(sent.head, body: sent.body.map { RequestBody(bytes: $0) }).description,
        ].joined(separator: "\n")
        for (place, secret) in secrets.enumerated() {
            #expect(!written.contains(secret), "secret \(place) (seed \(seed)) reached the output")
        }
        // The server saw every secret of the request (proof they were sent).
        let received = origin.requests.map { seen in
            "\(seen.head.authority ?? "") \(seen.head.path ?? "") \(seen.head.headerFields) "
                + String(decoding: seen.body ?? [], as: UTF8.self)
        }.joined()
        for secret in secrets[0...5] {
            #expect(received.contains(secret), "the server did not get \(secret)")
        }
        #expect(log.entries.count > 12)
    }
}

/// A seeded generator, so that a failing case can be run again.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    mutating func word(length: Int) -> String {
        let letters = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        return String((0..<length).map { _ in letters[Int(next() % UInt64(letters.count))] })
    }
}
