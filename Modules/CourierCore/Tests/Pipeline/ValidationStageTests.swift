import CourierCodable
@_spi(Locking) @_spi(Decoding) import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Synchronization
import Testing

/// Validation is a stage of the call, not of the attempt: whatever response
/// reaches it — from the transport or made up by a per-call interceptor (a
/// short-circuit, tomorrow a cache hit) — is checked, and decoding never runs
/// on a response that failed.
struct ValidationStageTests {
    static func response(status: HTTPResponse.Status = .ok, _ body: String) -> RawResponse {
        var head = HTTPResponse(status: status)
        head.headerFields[.contentType] = "application/json"
        return RawResponse(head: head, body: .bytes(Array(body.utf8)))
    }

    /// A per-call interceptor that answers the call itself.
    static func answering(_ response: RawResponse) -> ClosureInterceptor {
        ClosureInterceptor { _, _, _ in response }
    }

    @Test func aShortCircuitedServerErrorFailsValidation() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let client = makeClient(
            recorder,
            callInterceptors: [
                Self.answering(Self.response(status: .internalServerError, #"{"id":1,"name":"x"}"#))
            ])
        let error = await expectFailure(client, Endpoint<User>(.get("u"), on: .api))
        #expect(error?.code == .status)
        #expect(error?.stage == .validation)
        #expect(error?.response?.statusCode == 500)
        #expect(error?.attempt == 0)  // nothing was sent
        #expect(recorder.records.isEmpty)
    }

    @Test func aShortCircuitedBusinessErrorIsNotDeliveredAsSuccess() async throws {
        let body = #"{"code":1001,"msg":"captcha required","data":{"id":1,"name":"x"}}"#
        let client = makeClient(
            StubTransport.immediate(.json("{}")), callInterceptors: [Self.answering(Self.response(body))])
        let error = await expectFailure(client, Endpoint<User>(.get("u"), on: .enveloped))
        #expect(error?.code == .envelope)
        #expect(error?.businessFailure == .init(code: 1001, message: "captcha required"))
    }

    @Test func aResponseChangedByAPerCallInterceptorIsValidatedAgain() async throws {
        // The transport's response passes; the interceptor swaps its body for a business error.
        let client = makeClient(
            StubTransport.immediate(.envelope(code: 0, data: #"{"id":1,"name":"ok"}"#)),
            callInterceptors: [
                ClosureInterceptor { request, _, next in
                    var response = try await next(request)
                    response.body = .bytes(
                        Array(#"{"code":7,"msg":"changed","data":{"id":2,"name":"x"}}"#.utf8))
                    return response
                }
            ])
        let error = await expectFailure(client, Endpoint<User>(.get("u"), on: .enveloped))
        #expect(error?.code == .envelope)
        #expect(error?.businessFailure?.code == 7)
    }

    @Test func aResponseValidatedByThisCallIsNotReadTwice() async throws {
        // Given a decoder that counts envelope reads,
        let reads = CountingDecoder()
        let client = APIClient(
            configuration: .init(
                transport: StubTransport.immediate(.envelope(code: 0, data: #"{"id":1,"name":"ok"}"#)),
                decoder: reads,
                callInterceptors: [ClosureInterceptor { request, _, next in try await next(request) }],
                clock: TestClock()))
        // when a per-call interceptor passes the transport's response through,
        let user = try await client.send(Endpoint<User>(.get("u"), on: .enveloped))
        // then the envelope was read once, during the attempt, and decoded from that read.
        #expect(user.id == 1)
        #expect(reads.envelopeReads == 1)
    }

    @Test func aShortCircuitCountsAsNoAttempt() async throws {
        let client = makeClient(
            StubTransport.immediate(.status(500)), callInterceptors: [Self.answering(Self.response("{}"))])
        let reply = try await client.response(Endpoint<RawResponse>(.get("u"), on: .api))
        #expect(reply.attempts == 0)
        #expect(reply.response?.statusCode == 200)
    }
}

/// `.codable` that counts how often the envelope is read.
final class CountingDecoder: ResponseDecoder {
    private let inner: any ResponseDecoder = .codable
    private let reads = Locked(0)

    var envelopeReads: Int { reads.withLock { $0 } }

    func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], at path: [String]) throws -> T {
        try inner.decode(type, from: body, at: path)
    }

    func readEnvelope(_ body: [UInt8], format: EnvelopeFormat) throws -> EnvelopeHead {
        reads.withLock { $0 += 1 }
        return try inner.readEnvelope(body, format: format)
    }
}
