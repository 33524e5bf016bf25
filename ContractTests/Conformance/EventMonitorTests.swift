import CourierCore
import CourierMockServer
import HTTPTypes
import NIOConcurrencyHelpers
import Testing

/// A call's events over every transport, against a real server: a 503, a
/// retry, a redirect and the answer, in that order, with the phase timings
/// each transport measures.
struct EventMonitorTests {
    /// Keeps every event.
    final class Recorder: EventMonitor {
        private let events = NIOLockedValueBox<[CallEvent.Kind]>([])
        var kinds: [CallEvent.Kind] { events.withLockedValue { $0 } }
        func callEvent(_ event: CallEvent) { events.withLockedValue { $0.append(event.kind) } }
    }

    static let stubs = """
        { "mappings": [
          { "id": "flaky", "request": { "method": "GET", "urlPath": "/flaky" },
            "responses": [ { "status": 503 },
                           { "status": 302, "headers": { "Location": "/anything/done" } } ] }
        ] }
        """

    @Test(arguments: TransportKind.allCases)
    func aRetryThenARedirectInOrderWithPhaseTimings(kind: TransportKind) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let recorder = Recorder()
            var configuration = APIClient.Configuration(
                transport: kind.transport,
                retryPolicy: RetryPolicy(maxAttempts: 2, backoff: .constant(.zero), jitter: .none),
                timeout: hangGuard)
            configuration.eventMonitors = [recorder]
            let node = Node("mock", baseURL: server.baseURL)
            let response = try await APIClient(configuration: configuration).send(
                Endpoint<RawResponse>(.get("flaky"), on: node))
            #expect(response.statusCode == 200)
            let names = recorder.kinds.map(Self.name)
            #expect(
                names == [
                    "pass", "attempt 1", "finished 1: status", "retry", "attempt 2",
                    "302 /flaky → /anything/done",
                    "finished 2: 200", "end",
                ], "\(names)")
            guard case .attemptFinished(_, .success(let done)) = recorder.kinds.dropLast().last else {
                Issue.record("no successful attempt")
                return
            }
            // Every transport measures the whole exchange and the wait for its head;
            // libcurl also the name lookup and the connection.
            let metrics = done.metrics
            #expect(metrics.total != nil && metrics.timeToFirstByte != nil, "\(kind): \(metrics)")
            if kind.isCurl { #expect(metrics.dnsLookup != nil && metrics.connect != nil, "\(metrics)") }
        }
    }

    static func name(_ kind: CallEvent.Kind) -> String {
        switch kind {
        case .passStarted: "pass"
        case .attemptStarted(let number, _): "attempt \(number)"
        case .attemptFinished(let number, .success(let response)):
            "finished \(number): \(response.statusCode)"
        case .attemptFinished(let number, .failure(let error)): "finished \(number): \(error.code)"
        case .retryScheduled: "retry"
        case .redirected(let status, let from, let to): "\(status) \(from.path ?? "") → \(to.path ?? "")"
        case .passFinished: "end"
        default: "other"
        }
    }
}
