import CourierCore
import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

struct MappingTests {
    @Test func clientMappingAddsHeadersAndQueryWithoutOverridingTheEndpoint() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let mapping = EndpointMapping.default
            .adding(headers: [.acceptLanguage: "zh-Hans", .userAgent: "courier"])
            .adding(query: ["app": "demo", "v": 1])
        let client = makeClient(recorder, mapping: mapping)
        _ = try await client.send(
            Endpoint<RawResponse>(.get("x"), on: .api, query: ["v": 2], headers: [.userAgent: "mine"]))
        let head = try #require(recorder.records.first?.head)
        #expect(head.path == "/v1/x?app=demo&v=2")
        #expect(head.headerFields[.acceptLanguage] == "zh-Hans")
        #expect(head.headerFields[values: .userAgent] == ["mine"])
    }

    @Test func mappingCanReplaceContent() async throws {
        let recorder = RecordingTransport(StubTransport.immediate(.json("{}")))
        let mapping = EndpointMapping { spec in
            var spec = spec
            if spec.route.method == .post {
                spec.content = .raw(Array("replaced".utf8), contentType: "text/plain")
            }
            return spec
        }
        _ = try await makeClient(recorder, mapping: mapping).send(
            Endpoint<RawResponse>(.post("x"), on: .api, content: .json(["a": 1])))
        #expect(recorder.records.first?.bodyText == "replaced")
        #expect(recorder.records.first?.head.headerFields[.contentType] == "text/plain")
    }

    @Test func mappingFailuresAreBuildErrors() async {
        struct Offline: Error {}
        let client = makeClient(
            StubTransport.immediate(.json("{}")), mapping: EndpointMapping { _ in throw Offline() })
        let error = await expectFailure(client, Endpoint<RawResponse>(.get("x"), on: .api))
        #expect(error?.code == .invalidRequest)
        #expect(error?.stage == .build)
        #expect(error?.underlying is Offline)
    }

    @Test func copyWithHelpers() {
        let base = Endpoint<RawResponse>(.post("x"), on: .api, query: ["a": 1], content: .form(["f": 1]))
        let changed = base.adding(query: ["b": 2]).adding(parameters: ["g": 2]).adding(headers: [
            .accept: "x/y"
        ])
        #expect(changed.query == ["a": 1, "b": 2])
        #expect(changed.content.parameters == ["f": 1, "g": 2])
        #expect(changed.headers[.accept] == "x/y")
        let noBody = Endpoint<RawResponse>(.get("x"), on: .api).adding(parameters: ["p": true])
        #expect(noBody.query == ["p": true])
        #expect(base.replacing(content: .none).content.name == "none")
    }

    @Test func dynamicMemberAccessWritesTheSpec() {
        var endpoint = Endpoint<RawResponse>(.get("x"), on: .api)
        endpoint.timeout = .seconds(3)
        endpoint.headers[.accept] = "application/json"
        #expect(endpoint.spec.timeout == .seconds(3))
        #expect(endpoint.spec.headers[.accept] == "application/json")
    }
}
