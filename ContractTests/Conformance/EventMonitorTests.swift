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
            Self.expectPhasesInOrder(done.metrics, kind, tls: false)
            // The first attempt opened the connection the others reused.
            guard case .attemptFinished(1, .failure(let refused)) = recorder.kinds[2],
                let first = refused.response?.metrics
            else {
                Issue.record("no first attempt with a response")
                return
            }
            Self.expectPhasesInOrder(first, kind, tls: false)
            if kind.isCurl {
                #expect(first.connectionReused == false && done.metrics.connectionReused == true)
            }
        }
    }

    /// The phases a transport measured are there, not negative, and in the
    /// order they happen: name lookup, connecting, the TLS handshake, the
    /// first byte, the whole exchange (libcurl counts each from the start).
    /// A transport that measures no TLS phase leaves it `nil`; a plain
    /// `http` exchange has none either.
    static func expectPhasesInOrder(_ metrics: TransportMetrics, _ kind: TransportKind, tls: Bool) {
        guard let total = metrics.total, let firstByte = metrics.timeToFirstByte else {
            Issue.record("\(kind): no total or time to first byte in \(metrics)")
            return
        }
        #expect(firstByte >= .zero && firstByte <= total, "\(kind): \(metrics)")
        if !tls { #expect(metrics.tlsHandshake == nil, "\(kind): a TLS phase over http: \(metrics)") }
        guard kind.isCurl else { return }
        if metrics.connectionReused == true {
            // No lookup, connect or handshake happened for this exchange.
            #expect(
                metrics.dnsLookup == nil && metrics.connect == nil && metrics.tlsHandshake == nil,
                "\(kind): phases of a reused connection: \(metrics)")
            return
        }
        guard let lookup = metrics.dnsLookup, let connect = metrics.connect else {
            Issue.record("\(kind): no name lookup or connect phase in \(metrics)")
            return
        }
        var phases = [lookup, connect]
        if tls {
            guard let handshake = metrics.tlsHandshake else {
                Issue.record("\(kind): no TLS phase over https: \(metrics)")
                return
            }
            phases.append(handshake)
        }
        phases += [firstByte, total]
        #expect(phases.first.map { $0 >= .zero } ?? false, "\(kind): \(metrics)")
        #expect(zip(phases, phases.dropFirst()).allSatisfy { $0 <= $1 }, "\(kind): out of order: \(metrics)")
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
