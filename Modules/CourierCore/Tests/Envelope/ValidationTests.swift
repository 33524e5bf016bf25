import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

struct ValidationTests {
    @Test(arguments: [
        (200, true), (204, true), (299, true), (199, false), (300, false), (404, false), (500, false),
    ])
    func defaultAcceptsOnly2xx(status: Int, accepted: Bool) {
        let head = HTTPResponse(status: .init(code: status))
        if accepted {
            #expect(throws: Never.self) { try Validation.successCodes.validate(head) }
        } else {
            #expect(throws: CourierError.self) { try Validation.successCodes.validate(head) }
        }
    }

    @Test func contentTypesIgnoreParametersAndCaseAndAllowWildcards() throws {
        let json = HTTPResponse(status: .ok, headerFields: [.contentType: "Application/JSON; charset=utf-8"])
        try Validation().requiring(contentTypes: ["application/json"]).validate(json)
        try Validation().requiring(contentTypes: ["application/*"]).validate(json)
        try Validation().requiring(contentTypes: ["*/*"]).validate(HTTPResponse(status: .ok))
        do {
            try Validation().requiring(contentTypes: ["application/json"]).validate(
                HTTPResponse(status: .ok, headerFields: [.contentType: "text/html"]))
            Issue.record("text/html passed a JSON-only validation")
        } catch {
            #expect(error.code == .contentType)
            #expect(error.message.contains("text/html"))
        }
    }

    @Test func statusFailuresCarryTheResponseAndRequest() async throws {
        let client = makeClient(StubTransport.immediate(.json(#"{"error":"nope"}"#, status: 422)))
        let error = try #require(await expectFailure(client, Endpoint<User>(.get("u"), on: .api)))
        #expect(error.code == .status)
        #expect(error.stage == .validation)
        #expect(error.response?.statusCode == 422)
        #expect(error.response?.body.bytes == Array(#"{"error":"nope"}"#.utf8))
        #expect(error.request?.path == "/v1/u")
        #expect(error.attempt == 1)
    }

    @Test func endpointValidationOverridesTheClient() async throws {
        var endpoint = Endpoint<RawResponse>(.get("x"), on: .api)
        endpoint.validation = .anyStatus
        let response = try await makeClient(StubTransport.immediate(.status(404))).send(endpoint)
        #expect(response.statusCode == 404)
    }

    @Test func emptyBodyDecodesAsEmptyResponse() async throws {
        let client = makeClient(StubTransport.immediate(.status(204)))
        _ = try await client.send(Endpoint<EmptyResponse>(.delete("x"), on: .api))
        let optional = try await client.send(Endpoint<User?>(.get("x"), on: .api))
        #expect(optional == nil)
    }
}
