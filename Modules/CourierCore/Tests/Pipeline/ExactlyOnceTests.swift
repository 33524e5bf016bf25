import CourierCore
import CourierTestSupport
import CourierTesting
import Dispatch
import HTTPTypes
import Testing

/// Every path calls the caller back exactly once, and `process` runs exactly
/// once per pass (one pass here: no response handler replays), whatever happened.
struct ExactlyOnceTests {
    struct Path: Sendable, CustomTestStringConvertible {
        let name: String
        let endpoint: Endpoint<User>
        let transport: any Transport
        var plugins: [any Plugin] = []
        var interceptors: [any Interceptor] = []
        let expectedCode: CourierError.Code?

        var testDescription: String { name }
    }

    struct Veto: Plugin {
        func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
            throw CourierError.vetoed("not today")
        }
    }

    static let ok = StubTransport.immediate(.json(#"{"id":1,"name":"Ada"}"#))

    static let paths: [Path] = [
        Path(name: "success", endpoint: Endpoint(.get("u"), on: .api), transport: ok, expectedCode: nil),
        Path(
            name: "build failure", endpoint: Endpoint(.get("u"), on: Node("bad", baseURL: "nope")),
            transport: ok,
            expectedCode: .invalidRequest),
        Path(
            name: "plugin veto", endpoint: Endpoint(.get("u"), on: .api), transport: ok, plugins: [Veto()],
            expectedCode: .vetoed),
        Path(
            name: "interceptor veto", endpoint: Endpoint(.get("u"), on: .api), transport: ok,
            interceptors: [.intercept { _, _, _ in throw CourierError.vetoed("offline") }],
            expectedCode: .vetoed),
        Path(
            name: "transport error", endpoint: Endpoint(.get("u"), on: .api),
            transport: StubTransport.immediate(.failure(.connectionFailed)), expectedCode: .transport),
        Path(
            name: "status error", endpoint: Endpoint(.get("u"), on: .api),
            transport: StubTransport.immediate(.status(404)), expectedCode: .status),
        Path(
            name: "decoding error", endpoint: Endpoint(.get("u"), on: .api),
            transport: StubTransport.immediate(.json(#"{"id":"x"}"#)), expectedCode: .decoding),
        Path(
            name: "business error", endpoint: Endpoint(.get("u"), on: .enveloped),
            transport: StubTransport.immediate(.envelope(code: 7, msg: "no")), expectedCode: .envelope),
    ]

    @Test(arguments: paths)
    func completionRunsExactlyOnce(path: Path) async throws {
        let log = EventLog()
        let client = makeClient(
            path.transport, plugins: path.plugins + [LoggingPlugin(name: "P", log: log)],
            callInterceptors: path.interceptors)
        let results = await completionResults(client, path.endpoint)
        try #require(results.count == 1)
        #expect(results[0].failureValue?.code == path.expectedCode)
        #expect(log.events.filter { $0 == "P.process" }.count == 1)
        #expect(
            log.events.filter { $0.hasPrefix("P.willSend") }.count
                == log.events.filter { $0.hasPrefix("P.didReceive") }.count)
    }

    @Test func cancellationBeforeStartStillCallsBackOnce() async throws {
        let clock = TestClock(mode: .manual)
        let client = makeClient(
            StubTransport(latency: .seconds(5), clock: clock) { _ in .json("{}") }, clock: clock)
        let results = await completionResults(
            client, Endpoint<User>(.get("u"), on: .api), cancelImmediately: true)
        try #require(results.count == 1)
        #expect(results[0].failureValue?.code == .cancelled)
    }

    @Test func completionCanBeDeliveredOnAQueue() async throws {
        let client = makeClient(Self.ok)
        let queue = DispatchQueue(label: "courier.tests.callbacks")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "callbacks")
        let (user, label): (User, String?) = try await withCheckedThrowingContinuation { continuation in
            client.send(Endpoint<User>(.get("u"), on: .api), queue: queue) { result in
                continuation.resume(with: result.map { ($0, DispatchQueue.getSpecific(key: key)) })
            }
        }
        #expect(user == User(id: 1, name: "Ada"))
        #expect(label == "callbacks")
    }
}
