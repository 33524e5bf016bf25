import CourierCodable
import CourierCore
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryTracing
import Testing
import Tracing

@testable import CourierPlugins

struct TracingPluginTests {
    @Test func oneSpanPerCallOnePerAttemptWithTheConventionsAttributes() async throws {
        let tracer = InMemoryTracer()
        let origin = Origin { _, number in number == 1 ? .status(503) : .json(#"{"id": 7, "name": "Ada"}"#) }
        let client = APIClient(
            transport: origin.transport, decoder: .codable, plugins: [TracingPlugin(tracer: tracer)],
            retryPolicy: .standard, clock: TestClock())
        let endpoint = Endpoint<User>(
            .get("users/\(7, name: "id")"), on: .api, query: ["access_token": "t0k"])
        _ = try await client.send(endpoint)
        let spans = tracer.finishedSpans
        #expect(spans.count == 3)
        let call = try #require(spans.first { $0.kind == .internal })
        let attempts = spans.filter { $0.kind == .client }
        #expect(call.operationName == "GET users/{id}" && call.parentSpanID == nil && call.status == nil)
        #expect(call.events.map(\.name) == ["courier.retry"])  // from the call's events
        #expect(
            attempts.count == 2
                && attempts.allSatisfy { $0.parentSpanID == call.spanID && $0.traceID == call.traceID })
        let (first, second) = (attempts[0], attempts[1])
        #expect(first.attributes["http.request.method"]?.toSpanAttribute() == "GET")
        #expect(
            first.attributes["url.full"]?.toSpanAttribute()
                == "https://api.example.com/v1/users/7?access_token=***")
        #expect(first.attributes["url.template"]?.toSpanAttribute() == "users/{id}")
        #expect(first.attributes["server.address"]?.toSpanAttribute() == "api.example.com")
        #expect(first.attributes["server.port"]?.toSpanAttribute() == 443)
        #expect(first.attributes["http.response.status_code"]?.toSpanAttribute() == 503)
        #expect(first.attributes["error.type"]?.toSpanAttribute() == "503" && first.status?.code == .error)
        #expect(first.attributes["http.request.resend_count"] == nil)
        #expect(second.attributes["http.request.resend_count"]?.toSpanAttribute() == 1)
        #expect(
            second.attributes["http.response.status_code"]?.toSpanAttribute() == 200 && second.status == nil)
        // Each attempt carried its own span's context to the server.
        let sent = origin.requests.map { $0.head.headerFields[HTTPField.Name(InMemoryTracer.spanIDKey)!] }
        #expect(sent == [first.spanID, second.spanID])
        #expect(
            origin.requests.allSatisfy {
                $0.head.headerFields[HTTPField.Name(InMemoryTracer.traceIDKey)!] == call.traceID
            })
    }

    @Test func theCallerContextIsTheParentAndFailuresMarkTheCall() async throws {
        let tracer = InMemoryTracer()
        let origin = Origin { _, _ in .failure(.connectionReset) }
        let client = APIClient(
            transport: origin.transport, decoder: .codable, plugins: [TracingPlugin(tracer: tracer)])
        await tracer.withSpan("checkout") { _ in
            _ = try? await client.send(Endpoint<User>(.get("cart"), on: .api))
        }
        let spans = tracer.finishedSpans
        let outer = try #require(spans.first { $0.operationName == "checkout" })
        let call = try #require(spans.first { $0.operationName == "GET cart" && $0.kind == .internal })
        let attempt = try #require(spans.first { $0.kind == .client })
        #expect(call.parentSpanID == outer.spanID)
        #expect(
            call.status?.code == .error && call.attributes["error.type"]?.toSpanAttribute() == "transport")
        #expect(attempt.attributes["error.type"]?.toSpanAttribute() == "transport")
    }

    @Test func anAttemptVetoedAfterTheTracerStillEnds() async throws {
        struct Veto: Plugin {
            func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
                throw CourierError.vetoed("offline")
            }
        }
        let tracer = InMemoryTracer()
        let client = APIClient(
            transport: Origin().transport, decoder: .codable,
            plugins: [TracingPlugin(tracer: tracer), Veto()])
        _ = try? await client.send(Endpoint<User>(.get("me"), on: .api))
        #expect(tracer.activeSpans.isEmpty)
        #expect(tracer.finishedSpans.count == 2)
    }
}
