@_spi(Locking) import CourierCore
import CourierOpenAPI
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// What a generated client hands the transport, and what it gets back.
struct CourierClientTransportTests {
    func baseURL() throws -> URL { try #require(URL(string: "https://api.example.com/v2")) }

    /// Remembers the name each call went by.
    final class Names: Plugin {
        let seen = Locked<[String]>([])
        func willSend(_ request: HTTPRequest, context: CallContext) async {
            seen.withLock { $0.append(context.name) }
        }
    }

    @Test func theRequestGoesOutAsGeneratedAndIsNamedByItsOperation() async throws {
        let recorder = RecordingTransport(
            StubTransport.immediate(.response(status: 201, body: Array("made".utf8))))
        let names = Names()
        let courier = APIClient(configuration: .init(transport: recorder, plugins: [names]))
        let transport = CourierClientTransport(client: courier)
        var request = HTTPRequest(
            method: .post, scheme: nil, authority: nil, path: "/orders/42/items?tag=a%20b&tag=c")
        request.headerFields[.contentType] = "application/json"
        let (response, body) = try await transport.send(
            request, body: HTTPBody(#"{"n":1}"#), baseURL: try baseURL(), operationID: "addItem")
        #expect(response.status.code == 201)
        #expect(try await String(collecting: try #require(body), upTo: 100) == "made")
        let sent = try #require(recorder.records.first)
        #expect(sent.head.path == "/v2/orders/42/items?tag=a%20b&tag=c")
        #expect(sent.head.authority == "api.example.com")
        #expect(sent.head.headerFields[.contentType] == "application/json")
        #expect(sent.bodyText == #"{"n":1}"#)
        #expect(names.seen.withLock { $0 } == ["POST addItem"])
    }

    /// Reads each request's body as a server would, and answers 503.
    final class BusyServer: Transport {
        let bodies = Locked<[[UInt8]]>([])
        func send(_ request: OutgoingRequest, options: TransportOptions) async throws -> RawResponse {
            let body = try await request.body?.collect() ?? []
            bodies.withLock { $0.append(body) }
            return RawResponse(
                head: HTTPResponse(status: .serviceUnavailable), body: .bytes(Array("busy".utf8)))
        }
    }

    @Test func aStreamOfUnknownLengthIsStreamedAndARefusalIsAnAnswer() async throws {
        let recorder = BusyServer()
        let clock = TestClock()
        let courier = APIClient(
            configuration: .init(
                transport: recorder, retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none), clock: clock))
        let chunks = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
            continuation.yield(ArraySlice("part one, ".utf8))
            continuation.yield(ArraySlice("part two".utf8))
            continuation.finish()
        }
        let (response, body) = try await CourierClientTransport(client: courier).send(
            HTTPRequest(method: .put, scheme: nil, authority: nil, path: "/upload"),
            body: HTTPBody(chunks, length: .unknown), baseURL: try baseURL(), operationID: "upload")
        // A stream cannot be sent twice: one attempt, and its 503 is the answer.
        #expect(response.status.code == 503)
        #expect(try await String(collecting: try #require(body), upTo: 100) == "busy")
        #expect(recorder.bodies.withLock { $0 } == [Array("part one, part two".utf8)])
    }

    @Test func aKnownSmallBodyIsReplayedByRetries() async throws {
        let recorder = RecordingTransport(
            StubTransport.sequence([
                .response(status: 503, body: []), .response(status: 200, body: Array("ok".utf8)),
            ]))
        let courier = APIClient(
            configuration: .init(
                transport: recorder, retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none),
                clock: TestClock()))
        let (response, _) = try await CourierClientTransport(client: courier).send(
            HTTPRequest(method: .put, scheme: nil, authority: nil, path: "/upload"),
            body: HTTPBody("again"), baseURL: try baseURL(), operationID: "upload")
        #expect(response.status.code == 200)
        #expect(recorder.records.map(\.bodyText) == ["again", "again"])
    }
}
