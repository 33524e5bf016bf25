import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// An error from user code in the pipeline names the type that threw it, as
/// swift-openapi-runtime names the failing middleware.
struct ThrownByTests {
    struct Boom: Error {}

    struct RefreshInterceptor: Interceptor {
        func intercept(_ request: OutgoingRequest, context: CallContext, next: InterceptorNext) async throws
            -> RawResponse
        {
            throw Boom()
        }
    }

    struct AuditPlugin: Plugin {
        func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
            throw Boom()
        }
    }

    @Test func aCallInterceptorIsNamed() async {
        let client = makeClient(
            StubTransport.immediate(.json("{}")), callInterceptors: [RefreshInterceptor()])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .interceptor)
        #expect(error?.message.contains("RefreshInterceptor") == true, "\(String(describing: error))")
        #expect(error?.thrownBy == "CourierCoreTests.ThrownByTests.RefreshInterceptor")
        #expect(
            error?.description.contains("thrown by: CourierCoreTests.ThrownByTests.RefreshInterceptor")
                == true)
        #expect(error?.underlying is Boom)
    }

    @Test func anAttemptInterceptorIsNamed() async {
        let client = makeClient(
            StubTransport.immediate(.json("{}")), attemptInterceptors: [RefreshInterceptor()])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.message.contains("RefreshInterceptor") == true, "\(String(describing: error))")
        #expect(error?.attempt == 1)
    }

    @Test func aPluginIsNamed() async {
        let client = makeClient(StubTransport.immediate(.json("{}")), plugins: [AuditPlugin()])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.message.contains("AuditPlugin") == true, "\(String(describing: error))")
        #expect(error?.thrownBy?.hasSuffix("AuditPlugin") == true)
    }

    @Test func aClosureInterceptorIsNamedByWhereItWasMade() async {
        let client = makeClient(
            StubTransport.immediate(.json("{}")), callInterceptors: [.intercept { _, _, _ in throw Boom() }])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.message.contains("ThrownByTests.swift:") == true, "\(String(describing: error))")
    }

    @Test func aVetoNamesTheInterceptorThatVetoed() async {
        let client = makeClient(
            StubTransport.immediate(.json("{}")),
            callInterceptors: [
                .intercept { request, _, next in try await next(request) },
                .intercept(name: "offline gate") { _, _, _ in throw CourierError.vetoed("offline") },
            ])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .vetoed)
        #expect(error?.thrownBy == "offline gate")
    }

    @Test func anErrorFromFurtherInKeepsItsOwnOrigin() async {
        // The outer interceptor lets the transport's failure through unchanged.
        let client = makeClient(
            StubTransport.immediate(.status(404)),
            callInterceptors: [.intercept(name: "outer") { request, _, next in try await next(request) }])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .status)
        #expect(error?.thrownBy == nil)
    }

    @Test func aResponseHandlerIsNamed() async {
        let endpoint = Endpoint<RawResponse>(.get("x"), on: .api).onResponse(name: "relogin") { _, _ in
            throw Boom()
        }
        let error = await expectFailure(makeClient(StubTransport.immediate(.json("{}"))), endpoint)
        #expect(error?.code == .interceptor)
        #expect(error?.stage == .responseInterception)
        #expect(error?.thrownBy == "relogin")
        #expect(error?.underlying is Boom)
    }

    @Test func aParameterInterceptorIsNamed() async {
        let client = makeClient(
            StubTransport.immediate(.json("{}")),
            parameterInterceptors: [ParameterInterceptor { _, _, _ in throw Boom() }])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("ThrownByTests.swift:") == true, "\(String(describing: error))")
    }

    @Test func theEndpointMappingIsNamed() async {
        let client = makeClient(
            StubTransport.immediate(.json("{}")), mapping: EndpointMapping { _ in throw Boom() })
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("ThrownByTests.swift:") == true, "\(String(describing: error))")
    }
}
