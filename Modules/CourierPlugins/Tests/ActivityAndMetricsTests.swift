import CourierCodable
@_spi(Locking) import CourierCore
import CourierStreamFormats
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import MetricsTestKit
import Testing

@testable import CourierPlugins

struct ActivityAndMetricsTests {
    /// Vetoes attempts whose path says so (after the activity plugin ran).
    struct Veto: Plugin {
        func prepare(_ request: HTTPRequest, context: CallContext) async throws -> HTTPRequest {
            if request.path?.contains("veto") == true { throw CourierError.vetoed("not today") }
            return request
        }
    }

    @Test func everyCallBeginsOnceAndEndsOnceThroughAStorm() async throws {
        let events = Locked<[UInt64: [NetworkActivityPlugin.Change]]>([:])
        let activity = NetworkActivityPlugin { change, context, _ in
            events.withLock { $0[context.callID, default: []].append(change) }
        }
        let gate = TestGate()
        let count = Locked(0)
        let stalled = Locked(0)
        let transport = StubTransport { request in
            let number = count.withLock { value in
                value += 1
                return value
            }
            let path = request.head.path ?? ""
            if path.contains("stall") {
                stalled.withLock { $0 += 1 }
                await gate.wait()
            }
            if path.contains("flaky"), number % 2 == 1 { return .status(503) }
            if path.contains("reset") { return .failure(.connectionReset) }
            return .json(#"{"id": 7, "name": "Ada"}"#)
        }
        let client = APIClient(
            transport: transport, decoder: .codable, plugins: [activity, Veto()], retryPolicy: .standard,
            clock: TestClock())
        let kinds = ["ok", "flaky", "reset", "veto", "stall"]
        let calls = (0..<200).map { index in
            let endpoint = Endpoint<User>(.get("\(kinds[index % kinds.count])/\(index, name: "n")"), on: .api)
            return Task { try? await client.send(endpoint) }
        }
        // Cancel every stalled call once all 40 wait in the transport.
        try await waitUntil { stalled.withLock({ $0 }) >= 40 }
        for (index, call) in calls.enumerated() where index % kinds.count == 4 { call.cancel() }
        gate.open()  // the stub does not watch for cancellation; the pipeline drops what it returns
        for call in calls { _ = await call.value }
        let recorded = events.withLock { $0 }
        #expect(activity.activeCalls == 0)
        #expect(recorded.count == 200)  // vetoed calls began too: this plugin's prepare ran first
        #expect(recorded.values.allSatisfy { $0 == [.began, .ended] })
    }

    @Test func aCallThatNeverReachesTheNetworkNeitherBeginsNorEnds() async throws {
        let activity = NetworkActivityPlugin()
        let client = APIClient(transport: Origin().transport, decoder: .codable, plugins: [Veto(), activity])
        _ = try? await client.send(Endpoint<User>(.get("veto"), on: .api))
        _ = try? await client.send(Endpoint<User>(.get("bad path \u{7}"), on: .api))
        #expect(activity.activeCalls == 0)
    }

    @Test func metricsCountTimeAndMeasureEveryAttemptAndCall() async throws {
        let metrics = TestMetrics()
        let origin = Origin { head, number in
            if head.path?.contains("missing") == true { return .status(404) }
            return number == 1 ? .status(503) : .json(#"{"id": 7, "name": "Ada"}"#)
        }
        let client = APIClient(
            transport: origin.transport, decoder: .codable, plugins: [MetricsPlugin(factory: metrics)],
            retryPolicy: .standard, clock: TestClock())
        let user = Endpoint<User>(.put("users/\(7, name: "id")"), on: .api, content: .json(["name": "Ada"]))
        _ = try await client.send(user)
        _ = try? await client.send(Endpoint<User>(.get("missing/\(1, name: "id")"), on: .api))
        let endpoint = ("endpoint", "PUT users/{id}")
        #expect(
            try metrics.expectCounter(
                "courier_requests_total",
                [endpoint, ("status_class", "5xx"), ("status", "503"), ("error", "none")]
            ).totalValue == 1)
        #expect(
            try metrics.expectCounter(
                "courier_requests_total",
                [endpoint, ("status_class", "2xx"), ("status", "200"), ("error", "none")]
            ).totalValue == 1)
        #expect(
            try metrics.expectTimer(
                "courier_request_duration_seconds",
                [endpoint, ("status_class", "2xx"), ("status", "200"), ("error", "none")]
            ).values.count == 1)
        #expect(try metrics.expectCounter("courier_request_body_bytes_total", [endpoint]).totalValue == 28)
        #expect(try metrics.expectCounter("courier_response_body_bytes_total", [endpoint]).totalValue == 24)
        #expect(
            try metrics.expectCounter("courier_calls_total", [endpoint, ("outcome", "success")]).totalValue
                == 1)
        #expect(
            try metrics.expectCounter(
                "courier_calls_total", [("endpoint", "GET missing/{id}"), ("outcome", "status")]
            ).totalValue == 1)
        // From the call's events: the transport's phases per attempt, the retry and its reason.
        #expect(
            try metrics.expectTimer("courier_request_phase_seconds", [endpoint, ("phase", "total")]).values
                .count
                == 2)
        #expect(
            try metrics.expectCounter("courier_retries_total", [endpoint, ("reason", "status")]).totalValue
                == 1)
        // Labels are route templates: no raw path or id anywhere.
        let labels =
            metrics.counters.flatMap { $0.dimensions.map(\.1) }
            + metrics.timers.flatMap { $0.dimensions.map(\.1) }
        #expect(!labels.contains { $0.contains("/7") || $0.contains("/1") })
    }

    @Test func anEventStreamIsOneCallWithItsBytesAndEventsCountedOnce() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedStreamTransport { _, number in
            switch number {
            case 1: .stream(.eventStream, [.text("id: 1\ndata: a\n\n"), .drop])
            case 2: .stream(.eventStream, [.text("id: 2\ndata: b\n\nid: 3\ndata: c\n\n")])
            default: .stream(HTTPResponse(status: .noContent), [])
            }
        }
        let client = APIClient(
            transport: transport, decoder: .codable, plugins: [MetricsPlugin(factory: metrics)],
            retryPolicy: .standard, clock: TestClock())
        var seen = 0
        for try await _ in client.events(Endpoint<RawResponse>(.get("feed"), on: .api)) { seen += 1 }
        #expect(seen == 3)
        let endpoint = ("endpoint", "GET feed")
        // Three connections, each counted up to its head; one call, counted once with its totals.
        #expect(
            try metrics.expectCounter(
                "courier_requests_total",
                [endpoint, ("status_class", "2xx"), ("status", "200"), ("error", "none")]
            ).totalValue == 2)
        #expect(
            try metrics.expectCounter(
                "courier_requests_total",
                [endpoint, ("status_class", "2xx"), ("status", "204"), ("error", "none")]
            ).totalValue == 1)
        #expect(
            try metrics.expectCounter("courier_calls_total", [endpoint, ("outcome", "success")]).totalValue
                == 1)
        #expect(try metrics.expectCounter("courier_stream_events_total", [endpoint]).totalValue == 3)
        #expect(try metrics.expectCounter("courier_stream_body_bytes_total", [endpoint]).totalValue == 45)
    }
}
