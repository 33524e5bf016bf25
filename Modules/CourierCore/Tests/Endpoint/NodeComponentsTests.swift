import CourierCodable
@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// A node's own interceptors, plugins and business codes.
struct NodeComponentsTests {
    /// Logs its name on every hook it has.
    struct Named: Interceptor, Plugin {
        let name: String
        let log: EventLog

        func intercept(_ request: OutgoingRequest, context: CallContext, next: InterceptorNext) async throws
            -> RawResponse
        {
            log.append("\(name) \(context.attempt == 0 ? "call" : "attempt")")
            return try await next(request)
        }

        func willSend(_ request: HTTPRequest, context: CallContext) async { log.append("\(name) willSend") }
    }

    @Test func theNodeRunsBetweenTheClientAndTheEndpoint() async throws {
        let log = EventLog()
        var node = Node("api", baseURL: "https://api.example.com/v1")
        node.callInterceptors = [Named(name: "node", log: log)]
        node.attemptInterceptors = [Named(name: "node", log: log)]
        node.plugins = [Named(name: "node", log: log)]
        node.parameterInterceptors = [
            ParameterInterceptor { parameters, _, _ in parameters.merging(["from": "node"]) }
        ]
        var endpoint = Endpoint<User>(.get("me"), on: node)
        endpoint.callInterceptors = [Named(name: "endpoint", log: log)]
        endpoint.attemptInterceptors = [Named(name: "endpoint", log: log)]
        endpoint = endpoint.adding(plugins: [Named(name: "endpoint", log: log)])
        let transport = RecordingTransport(StubTransport.immediate(.json(#"{"id": 1, "name": "Ada"}"#)))
        let client = APIClient(
            transport: transport, decoder: .codable, callInterceptors: [Named(name: "client", log: log)],
            attemptInterceptors: [Named(name: "client", log: log)], plugins: [Named(name: "client", log: log)]
        )
        _ = try await client.send(endpoint, plugins: [Named(name: "call", log: log)])
        #expect(
            log.events == [
                "client call", "node call", "endpoint call", "client attempt", "node attempt",
                "endpoint attempt",
                "client willSend", "node willSend", "endpoint willSend", "call willSend",
            ])
        #expect(transport.records.first?.head.path == "/v1/me?from=node")
        // A node with components of its own is not equal to a plain one.
        #expect(Node("api", baseURL: "https://api.example.com/v1") != node)
    }

    static func api(_ log: EventLog, replay: Bool = false) -> Node {
        var node = Node("api", baseURL: "https://api.example.com/v1", envelope: .standard)
        node.businessCodes.on(4010, 4011) { error, context in
            log.append("signed out after \(error.businessFailure?.code.text ?? "") on \(context.name)")
            return replay ? .replayOnce : .fail
        }
        node.businessCodes.messages = { failure in "Please sign in again (\(failure.code))" }
        return node
    }

    @Test func aBusinessCodeRunsItsActionThenFails() async throws {
        let log = EventLog()
        let transport = StubTransport.immediate(.envelope(code: 4010, msg: "not logged in"))
        let client = APIClient(transport: transport, decoder: .codable)
        do {
            _ = try await client.send(Endpoint<User>(.get("me"), on: Self.api(log)))
            Issue.record("the call succeeded")
        } catch {
            #expect(error.code == .envelope && error.businessFailure?.code == 4010)
            #expect(error.userMessage == "Please sign in again (4010)")
            #expect(!error.description.contains("Please sign in"))
        }
        #expect(log.events == ["signed out after 4010 on GET me"])
    }

    @Test func replayOnceSendsAgainOnceOnly() async throws {
        let log = EventLog()
        let recovering = RecordingTransport(
            StubTransport.sequence([
                .envelope(code: 4011, msg: "renew"), .envelope(code: 0, data: #"{"id": 1, "name": "Ada"}"#),
            ]))
        let client = APIClient(transport: recovering, decoder: .codable)
        let reply = try await client.response(Endpoint<User>(.get("me"), on: Self.api(log, replay: true)))
        #expect(reply.model.name == "Ada" && reply.attempts == 2)
        // The same code again after the replay fails the call, the action not run twice.
        let stuck = RecordingTransport(StubTransport.immediate(.envelope(code: 4011, msg: "renew")))
        let failing = APIClient(transport: stuck, decoder: .codable)
        await #expect(throws: CourierError.self) {
            try await failing.send(Endpoint<User>(.get("me"), on: Self.api(log, replay: true)))
        }
        #expect(stuck.records.count == 2)
        #expect(log.events.count == 2)
    }

    @Test func codesInsideErrorStatusesMatchAndOthersPassUntouched() async throws {
        let log = EventLog()
        let transport = StubTransport.sequence([
            .envelope(code: 4010, msg: "expired", status: 401), .envelope(code: 5000),
        ])
        let client = APIClient(transport: transport, decoder: .codable)
        let endpoint = Endpoint<User>(.get("me"), on: Self.api(log))
        let first = await #expect(throws: CourierError.self) { try await client.send(endpoint) }
        #expect(first?.code == .status && first?.userMessage == "Please sign in again (4010)")
        let second = await #expect(throws: CourierError.self) { try await client.send(endpoint) }
        #expect(second?.businessFailure?.code == 5000 && second?.userMessage == "Please sign in again (5000)")
        #expect(log.events == ["signed out after 4010 on GET me"])
    }
}
