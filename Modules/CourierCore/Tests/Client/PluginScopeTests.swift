import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// Plugins come from the client, the endpoint and the call, in that order;
/// `process` runs once per pass.
struct PluginScopeTests {
    @Test func clientEndpointAndCallPluginsRunInThatOrder() async throws {
        let log = EventLog()
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(recorder, plugins: [LoggingPlugin(name: "client", log: log)])
        let endpoint = Endpoint<RawResponse>(.get("x"), on: .api)
            .adding(plugins: [LoggingPlugin(name: "endpoint", log: log)])
        _ = try await client.send(endpoint, plugins: [LoggingPlugin(name: "call", log: log)])
        #expect(
            log.events == [
                "client.prepare#1", "endpoint.prepare#1", "call.prepare#1",
                "client.willSend#1", "endpoint.willSend#1", "call.willSend#1",
                "client.didReceive#1:200", "endpoint.didReceive#1:200", "call.didReceive#1:200",
                "client.process", "endpoint.process", "call.process",
            ])
        #expect(
            recorder.records.first?.head.headerFields[values: .xPrepared] == ["client", "endpoint", "call"])
    }

    @Test func aCallsPluginsAreForThatCallOnly() async throws {
        let log = EventLog()
        let client = makeClient(StubTransport.immediate(.json("{}")))
        _ = try await client.send(
            Endpoint<RawResponse>(.get("x"), on: .api), plugins: [LoggingPlugin(name: "once", log: log)])
        _ = try await client.send(Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(log.events.filter { $0 == "once.process" }.count == 1)
    }

    @Test func completionHandlerCallsTakePluginsToo() async throws {
        let log = EventLog()
        let client = makeClient(StubTransport.immediate(.json("{}")))
        let call = client.send(
            Endpoint<RawResponse>(.get("x"), on: .api), plugins: [LoggingPlugin(name: "P", log: log)]
        ) { (_: Result<RawResponse, CourierError>) in }
        await call.wait()
        #expect(log.events.contains("P.process"))
    }

    /// Records `process` with the pass it ran in.
    struct PassRecorder: Plugin {
        let log: EventLog
        func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
            -> Result<RawResponse, CourierError>
        {
            log.append("process replay=\(context.replay)")
            return result
        }
    }

    @Test func processRunsOncePerPassAndKnowsWhichPass() async throws {
        let log = EventLog()
        let endpoint = Endpoint<User>(.get("u"), on: .api).onResponse { result, context in
            context.replays < 2 ? .retry(after: .zero) : .deliver(result)
        }
        let client = makeClient(
            StubTransport.immediate(.json(#"{"id":1,"name":"a"}"#)), plugins: [PassRecorder(log: log)])
        _ = try await client.send(endpoint)
        #expect(log.events == ["process replay=0", "process replay=1", "process replay=2"])
    }

    @Test func aReplacementFromProcessIsValidatedBeforeDecoding() async throws {
        struct Offline: Plugin {
            func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
                -> Result<RawResponse, CourierError>
            {
                let body = #"{"code":1001,"msg":"stale","data":{"id":1,"name":"x"}}"#
                return .success(RawResponse(head: HTTPResponse(status: .ok), body: .bytes(Array(body.utf8))))
            }
        }
        let client = makeClient(StubTransport.immediate(.status(503)), plugins: [Offline()])
        let error = await expectFailure(client, Endpoint<User>(.get("u"), on: .enveloped))
        #expect(error?.code == .envelope)
        #expect(error?.businessFailure?.code == 1001)
    }
}
