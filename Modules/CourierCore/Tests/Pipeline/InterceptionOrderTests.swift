import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// A plugin that logs every hook it sees.
struct LoggingPlugin: Plugin {
    let name: String
    let log: EventLog

    func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
        log.append("\(name).prepare#\(context.attempt)")
        var request = request
        request.headerFields.append(HTTPField(name: .xPrepared, value: name))
        return request
    }

    func willSend(_ request: HTTPRequest, context: CallContext) async {
        log.append("\(name).willSend#\(context.attempt)")
    }

    func didReceive(_ result: Result<RawResponse, CourierError>, request: HTTPRequest, context: CallContext)
        async
    {
        let outcome = (try? result.get()).map { "\($0.statusCode)" } ?? "failure"
        log.append("\(name).didReceive#\(context.attempt):\(outcome)")
    }

    func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
        -> Result<RawResponse, CourierError>
    {
        log.append("\(name).process")
        return result
    }
}

/// An interceptor that logs on the way in and out and tags the request.
func tagging(_ name: String, _ log: EventLog) -> ClosureInterceptor {
    .intercept { request, context, next in
        log.append("\(name)>")
        var request = request
        request.head.headerFields.append(HTTPField(name: .xChain, value: name))
        let response = try await next(request)
        log.append("<\(name)")
        return response
    }
}

struct InterceptionOrderTests {
    @Test func tiersRunClientFirstRequestsInOrderResponsesReversed() async throws {
        let log = EventLog()
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(
            recorder, callInterceptors: [tagging("clientCall", log)],
            attemptInterceptors: [tagging("clientAttempt", log)])
        var endpoint = Endpoint<RawResponse>(.get("x"), on: .api)
        endpoint.callInterceptors = [tagging("endpointCall", log)]
        endpoint.attemptInterceptors = [tagging("endpointAttempt", log)]
        _ = try await client.send(endpoint)

        #expect(
            log.events == [
                "clientCall>", "endpointCall>", "clientAttempt>", "endpointAttempt>",
                "<endpointAttempt", "<clientAttempt", "<endpointCall", "<clientCall",
            ])
        let sent = try #require(recorder.records.first)
        #expect(
            sent.head.headerFields[values: .xChain] == [
                "clientCall", "endpointCall", "clientAttempt", "endpointAttempt",
            ])
    }

    @Test func callTierRunsOnceAttemptTierRunsPerAttempt() async throws {
        let log = EventLog()
        let transport = StubTransport.sequence([.status(503), .status(503), .json("{}")])
        let client = makeClient(
            transport, retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none),
            callInterceptors: [tagging("call", log)], attemptInterceptors: [tagging("attempt", log)])
        _ = try await client.send(Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(log.events.filter { $0 == "call>" }.count == 1)
        #expect(log.events.filter { $0 == "attempt>" }.count == 3)
    }

    @Test func pluginHooksRunInDocumentedOrderAndBalance() async throws {
        let log = EventLog()
        let recorder = RecordingTransport(StubTransport.sequence([.status(500), .json("{}")]))
        let client = makeClient(
            recorder, retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none),
            plugins: [LoggingPlugin(name: "A", log: log), LoggingPlugin(name: "B", log: log)],
            attemptInterceptors: [tagging("attempt", log)])
        _ = try await client.send(Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(
            log.events == [
                "attempt>", "A.prepare#1", "B.prepare#1", "A.willSend#1", "B.willSend#1",
                "A.didReceive#1:500", "B.didReceive#1:500", "<attempt",
                "attempt>", "A.prepare#2", "B.prepare#2", "A.willSend#2", "B.willSend#2",
                "A.didReceive#2:200", "B.didReceive#2:200", "<attempt",
                "A.process", "B.process",
            ])
        // prepare's changes reach the transport, in plugin order.
        #expect(recorder.records.last?.head.headerFields[values: .xPrepared] == ["A", "B"])
    }

    @Test func parameterInterceptorsRunBeforeEncodingClientFirst() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(
            recorder,
            parameterInterceptors: [
                ParameterInterceptor { parameters, location, _ in
                    parameters.merging(["common": location == .query ? "q" : "b", "order": "client"])
                }
            ])
        var endpoint = Endpoint<RawResponse>(
            .post("x"), on: .api, query: ["id": 1], content: .form(["name": "a"]))
        endpoint.parameterInterceptors = [
            ParameterInterceptor { parameters, _, _ in parameters.merging(["order": "endpoint"]) }
        ]
        _ = try await client.send(endpoint)
        let record = try #require(recorder.records.first)
        #expect(record.head.path == "/v1/x?id=1&common=q&order=endpoint")
        #expect(record.bodyText == "name=a&common=b&order=endpoint")
    }

    @Test func anInterceptorCanShortCircuitWithoutTheTransport() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.status(500)))
        let cached = ClosureInterceptor { _, _, _ in
            RawResponse(
                head: HTTPResponse(status: .ok), body: .bytes(Array(#"{"id":1,"name":"cached"}"#.utf8)))
        }
        let client = makeClient(recorder, callInterceptors: [cached])
        let user = try await client.send(Endpoint<User>(.get("u"), on: .api))
        #expect(user.name == "cached")
        #expect(recorder.records.isEmpty)
    }

    @Test func aCallInterceptorCanSendAgainAfterRefreshingAToken() async throws {
        let token = Counter()
        let recorder = RecordingTransport(
            StubTransport { request in
                request.head.headerFields[.authorization] == "Bearer 2"
                    ? .json(#"{"id":1,"name":"ok"}"#) : .status(401)
            })
        let refresh = ClosureInterceptor { request, _, next in
            var request = request
            request.head.headerFields[.authorization] = "Bearer \(token.value)"
            do {
                return try await next(request)
            } catch let error as CourierError where error.response?.statusCode == 401 {
                token.increment()
                request.head.headerFields[.authorization] = "Bearer \(token.value)"
                return try await next(request)
            }
        }
        token.increment()
        let client = makeClient(recorder, callInterceptors: [refresh])
        let user = try await client.send(Endpoint<User>(.get("me"), on: .api))
        #expect(user.name == "ok")
        #expect(recorder.records.map { $0.head.headerFields[.authorization] } == ["Bearer 1", "Bearer 2"])
    }

    @Test func builtInHeaderAndBearerInterceptors() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(
            recorder, callInterceptors: [.headers([.acceptLanguage: "zh-Hans"]), .bearer { "t0k3n" }])
        _ = try await client.send(Endpoint<RawResponse>(.get("x"), on: .api))
        let head = try #require(recorder.records.first?.head)
        #expect(head.headerFields[.acceptLanguage] == "zh-Hans")
        #expect(head.headerFields[.authorization] == "Bearer t0k3n")
    }

    @Test func interceptorErrorsAreWrappedWithTheirStage() async {
        struct Boom: Error {}
        let client = makeClient(
            StubTransport.immediate(.json("{}")), callInterceptors: [.intercept { _, _, _ in throw Boom() }])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .interceptor)
        #expect(error?.stage == .interception)
        #expect(error?.underlying is Boom)
    }
}
