@_spi(Locking) @_spi(Transport) import CourierCore
import CourierTestSupport
import CourierTesting
import CourierTransfers
import Foundation
import HTTPTypes
import Synchronization
import Testing

struct ResponseFormTests {
    @Test func replyCarriesStatusHeadersBytesMetricsAndAttempts() async throws {
        let client = makeClient(
            StubTransport.sequence([.status(503), .json(#"{"id":1,"name":"A"}"#, headers: [.eTag: "\"v1\""])]
            ),
            retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none))
        let reply = try await client.response(Endpoint<User>(.get("u"), on: .api))
        #expect(reply.model.id == 1)
        #expect(reply.attempts == 2)
        let response = try #require(reply.response)
        #expect(response.statusCode == 200)
        #expect(response.headerFields[.eTag] == "\"v1\"")
        #expect(response.body.bytes == Array(#"{"id":1,"name":"A"}"#.utf8))
        #expect(response.metrics.bytesReceived == 19)
        #expect(response.metrics.connectionReused == false)
    }

    @Test func progressIsReportedForUploadAndDownload() async throws {
        let reports = Locked<[TransferProgress]>([])
        let client = makeClient(StubTransport.immediate(.json(#"{"id":1,"name":"A"}"#)))
        _ = try await client.send(
            Endpoint<User>(.put("u"), on: .api, content: .raw([1, 2, 3], contentType: "x/y")),
            progress: { progress in reports.withLock { $0.append(progress) } })
        let seen = reports.withLock { $0 }
        #expect(seen.map(\.direction) == [.upload, .download])
        #expect(seen.first?.fraction == 1)
        #expect(seen.last?.completed == 19)
    }

    @Test func downloadsLandAtTheDestination() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("nested/dir/file.bin")
        let client = makeClient(StubTransport.immediate(.response(status: 200, body: [9, 8, 7])))
        let file = try await client.send(.download(.get("f"), on: .api, to: DownloadDestination(destination)))
        #expect(file.url == destination)
        #expect(file.statusCode == 200)
        #expect(Array(try Data(contentsOf: destination)) == [9, 8, 7])

        // A second download without removePreviousFile refuses to overwrite.
        let error = await expectFailure(
            client, .download(.get("f"), on: .api, to: DownloadDestination(destination)))
        #expect(error?.code == .transport)
        let replaced = try await client.send(
            .download(
                .get("f"), on: .api, to: DownloadDestination(destination, options: [.removePreviousFile])))
        #expect(replaced.url == destination)
    }

    @Test func oversizedBodiesFailAsTransportErrors() async throws {
        var endpoint = Endpoint<RawResponse>(.get("big"), on: .api)
        endpoint.maxBodySize = 2
        let error = await expectFailure(
            makeClient(StubTransport.immediate(.response(status: 200, body: [1, 2, 3]))), endpoint)
        #expect(error?.code == .transport)
        #expect((error?.underlying as? TransportError)?.code == .bodyTooLarge)
    }

    @Test func environmentCanBeSwitchedWhileCallsRun() async throws {
        let node = Node("n", urls: [.production: "https://p.example", .mock: "http://127.0.0.1:9"])
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(recorder)
        #expect(client.environment == .production)
        client.environment = .mock
        _ = try await client.send(Endpoint<RawResponse>(.get("x"), on: node))
        #expect(recorder.records.first?.head.authority == "127.0.0.1:9")
    }
}

struct ErrorDescriptionTests {
    @Test func descriptionsAreReadableAndBounded() throws {
        let body = Array(("{\"error\":\"" + String(repeating: "x", count: 2000) + "\"}\n").utf8)
        var request = HTTPRequest(
            method: .post, scheme: "https", authority: "h", path: "/v1/users?token=secret")
        request.headerFields[.authorization] = "Bearer secret"
        let error = CourierError(
            .status, stage: .validation, message: "status 500 is not acceptable", request: request,
            response: RawResponse(head: HTTPResponse(status: .internalServerError), body: .bytes(body)),
            attempt: 3)
        #expect(
            error.description
                == "status error at validation: status 500 is not acceptable; request: POST /v1/users; status: 500; attempt: 3"
        )
        #expect(!error.description.contains("secret"))
        let snippet = try #require(error.bodySnippet)
        #expect(snippet.hasPrefix("{\"error\":\"xxx"))
        #expect(snippet.hasSuffix("… (\(body.count) bytes)"))
        #expect(snippet.count < CourierError.bodySnippetLimit + 40)
        #expect(error.debugDescription.contains("; body: {"))
        #expect(error.shortDescription == "validation.status")
        // What `localizedDescription` shows, as in other Swift libraries (not
        // "The operation could not be completed"), also through `any Error`.
        #expect(error.localizedDescription == error.description)
        let erased: any Error = error
        #expect(erased.localizedDescription == error.description)
    }

    @Test func snippetsEscapeControlCharacters() {
        let error = CourierError(
            .decoding, stage: .decoding, message: "m",
            response: RawResponse(head: HTTPResponse(status: .ok), body: .bytes([0x61, 0x0A, 0x00, 0x1B])))
        #expect(error.bodySnippet == "a\\n\\u{0}\\u{1b}")
    }

    @Test func businessAndUnderlyingCausesAppear() {
        let inner = CourierError(.status, stage: .validation, message: "status 503 is not acceptable")
        let outer = CourierError(
            .retriesExhausted, stage: .retry, message: "all 3 attempts failed", attempt: 3,
            businessFailure: .init(code: "E1", message: "busy"), underlying: inner)
        #expect(outer.description.contains("business code: \"E1\" \"busy\""))
        #expect(outer.description.contains("cause: status error at validation"))
        #expect(outer.rootCause.code == .status)
        #expect(CourierError.vetoed("no").code == .vetoed)
    }

    @Test func aCauseIsNeverToldTwice() async {
        // A transport failure: its text is the message; the cause adds nothing.
        let client = makeClient(
            StubTransport.immediate(.failure(.connectionFailed, "could not connect to 127.0.0.1")))
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        let text = error?.description ?? ""
        #expect(text.components(separatedBy: "could not connect to 127.0.0.1").count == 2, "\(text)")
        // A nested chain is told one level deep, each text once.
        let root = CourierError(.transport, stage: .transport, message: "reset by peer")
        let middle = CourierError(.status, stage: .validation, message: "status 503", underlying: root)
        let outer = CourierError(
            .retriesExhausted, stage: .retry, message: "all 3 attempts failed", underlying: middle)
        #expect(outer.description.components(separatedBy: "status 503").count == 2)
        #expect(!outer.description.contains("reset by peer"))
    }

    @Test func codesCompareAndPrintStably() {
        #expect(CourierError.Code.timedOut == CourierError.Code("timedOut"))
        #expect("\(CourierError.Code.retriesExhausted)" == "retriesExhausted")
        #expect(CourierError.Stage.envelope.description == "envelope")
    }
}

/// Download limits set on the client or the endpoint reach the transport.
struct DownloadLimitTests {
    /// Answers 200 and remembers the options it was given.
    final class Capturing: Transport {
        let seen = EventLog()
        func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
            seen.append("\(options.maxDownloadSize.map(String.init) ?? "none")")
            return RawResponse(head: HTTPResponse(status: .ok))
        }
    }

    @Test func clientAndEndpointLimitsReachTheTransport() async throws {
        let transport = Capturing()
        var configuration = APIClient.Configuration(transport: transport, clock: TestClock())
        configuration.maxDownloadSize = 5_000
        let client = APIClient(configuration: configuration)
        var endpoint = Endpoint<RawResponse>(.get("x"), on: .api)
        _ = try await client.send(endpoint)
        endpoint.maxDownloadSize = 42
        _ = try await client.send(endpoint)
        _ = try await APIClient(transport: transport).send(Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(transport.seen.events == ["5000", "42", "none"])
    }
}
