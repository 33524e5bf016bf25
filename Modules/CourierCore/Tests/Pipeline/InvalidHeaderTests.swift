import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

/// Control characters in what becomes the request head are refused with a
/// typed `invalidHeader` error before anything is sent — never rewritten,
/// never echoed.
struct InvalidHeaderTests {
    static let secret = "s3cr3t\r\nX-Injected: 1"

    @Test func aContentTypeWithControlCharactersIsRefused() async {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let endpoint = Endpoint<RawResponse>(
            .post("x"), on: .api, content: .raw([1], contentType: "text/plain\r\nX-Injected: 1"))
        let error = await expectFailure(makeClient(recorder), endpoint)
        #expect(error?.code == .invalidHeader)
        #expect(error?.message.contains("Content-Type") == true)
        #expect(error?.description.contains("X-Injected") == false)
        #expect(recorder.records.isEmpty)
    }

    @Test func aBearerTokenWithControlCharactersIsRefused() async {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(recorder, callInterceptors: [.bearer { Self.secret }])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .invalidHeader)
        #expect(error?.description.contains("s3cr3t") == false)
        #expect(recorder.records.isEmpty)
    }

    @Test(arguments: ["evil.example\r\nX-Injected: 1", "evil.example x"])
    func anAuthoritySetByAnInterceptorIsChecked(authority: String) async {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(
            recorder,
            attemptInterceptors: [
                .intercept { request, _, next in
                    var request = request
                    request.head.authority = authority
                    return try await next(request)
                }
            ])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .invalidHeader)
        #expect(error?.message.contains("authority") == true)
        #expect(error?.attempt == 1)
        #expect(recorder.records.isEmpty)
    }

    /// `Proxy-Authorization` is a proxy's: given by an endpoint or set by an
    /// interceptor, it is refused and nothing is sent (a transport would hand
    /// a request's own fields to the origin).
    @Test(arguments: [false, true])
    func proxyAuthorizationIsNeverARequestsField(byInterceptor: Bool) async {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(
            recorder,
            attemptInterceptors: [
                .intercept { request, _, next in
                    var request = request
                    if byInterceptor { request.head.headerFields[.proxyAuthorization] = "Basic c2VjcmV0" }
                    return try await next(request)
                }
            ])
        let endpoint = Endpoint<RawResponse>(
            .get("x"), on: .api, headers: byInterceptor ? [:] : [.proxyAuthorization: "Basic c2VjcmV0"])
        let error = await expectFailure(client, endpoint)
        #expect(error?.code == .invalidHeader)
        #expect(error?.message.contains("Proxy.Credentials") == true)
        #expect(error?.description.contains("c2VjcmV0") == false)
        #expect(recorder.records.isEmpty)
    }

    @Test func aPathWithASpaceSetByAnInterceptorIsChecked() async {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(
            recorder,
            callInterceptors: [
                .intercept { request, _, next in
                    var request = request
                    request.head.path = "/v1/x y"
                    return try await next(request)
                }
            ])
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .invalidHeader)
        #expect(recorder.records.isEmpty)
    }

    @Test func checkedValuesPassLegalTextAndRefuseTheRest() throws {
        #expect(try RequestHeadCheck.checkedValue("gzip;\tq=1", for: .acceptEncoding) == "gzip;\tq=1")
        #expect(throws: CourierError.self) { try RequestHeadCheck.checkedValue("a\u{7F}b", for: .userAgent) }
        #expect(throws: CourierError.self) { try RequestHeadCheck.checkedValue("a\0b", for: .userAgent) }
    }
}
