@_spi(Transport) import CourierCore
import CourierMockServer
import HTTPTypes
import Testing

/// A keep-alive connection that dies before answering the next request.
///
/// libcurl (and FoundationNetworking, which is built on it) sends such a
/// request again on a fresh connection by itself. That is fine for idempotent
/// methods and dangerous for the rest: RFC 9110 §9.2.2 says a client should
/// not repeat a POST it cannot know was not processed. CourierCurl lets
/// libcurl resend idempotent requests (rewinding their bodies) and stops it
/// for the rest, failing with `connectionReset` so the retry policy decides.
struct StaleConnectionTests {
    static let stub = #"""
        {"id": "seq", "request": {"urlPath": "/seq"},
         "responses": [{"body": "one"}, {"fault": "resetBeforeHeaders"}, {"body": "three"}],
         "exhausted": "repeatLast"}
        """#

    /// How long URLSession's stalled uploads may take before they time out.
    /// Long enough that the request reaches the server first even on a loaded
    /// machine (the journal count after the timeout depends on it); the test
    /// waits this long only where URLSession stalls.
    static let stallDeadline: Duration = .seconds(10)

    /// A method, and whether the request carries a body.
    struct Case: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var withBody: Bool
        var testDescription: String { "\(method)\(withBody ? " with a body" : "")" }
        var body: RequestBody? { withBody ? RequestBody(bytes: Array("payload".utf8)) : nil }
    }

    @Test(
        arguments: TransportKind.allCases,
        [
            Case(method: .get, withBody: false), Case(method: .delete, withBody: false),
            Case(method: .put, withBody: true),
        ])
    func idempotentRequestsAreResentOnAFreshConnection(kind: TransportKind, method: Case) async throws {
        try await withStaleConnection(kind) { server, transport async throws in
            if kind == .urlSession, method.withBody {
                // FoundationNetworking cannot rewind the body: the upload stalls
                // until the deadline (a documented gap), and is not duplicated.
                await expectTransportError(.timedOut, "\(method)") {
                    try await transport.send(
                        request(server, "/seq", method: method.method, body: method.body),
                        options: .init(timeout: Self.stallDeadline))
                }
                _ = try await server.journal.waitFor(2)
                #expect(server.journal.entries.count == 2)
                return
            }
            let second = try await transport.send(
                request(server, "/seq", method: method.method, body: method.body), options: .guarded)
            #expect(second.body.bytes == Array("three".utf8))
            // libcurl's own resend is reported: the server saw one request more.
            if kind.isCurl { #expect(second.metrics.resends == 1) }
            let entries = try await server.journal.waitFor(3)
            #expect(entries.count == 3)
            #expect(entries[2].connectionIndex != entries[1].connectionIndex)
            #expect(entries[2].request.body == (method.withBody ? Array("payload".utf8) : []))
        }
    }

    @Test(
        arguments: TransportKind.allCases,
        [
            Case(method: .post, withBody: true), Case(method: .patch, withBody: true),
            Case(method: .post, withBody: false),
        ])
    func nonIdempotentRequestsAreNeverResent(kind: TransportKind, method: Case) async throws {
        try await withStaleConnection(kind) { server, transport async throws in
            if kind == .urlSession, !method.withBody {
                // A documented gap: FoundationNetworking resends a bodyless
                // request itself, whatever its method, and tells nobody.
                _ = try await transport.send(
                    request(server, "/seq", method: method.method), options: .guarded)
                #expect(try await server.journal.waitFor(3).count == 3)
                return
            }
            // URLSession stalls until the deadline (a documented gap); libcurl
            // fails at once, so it gets no deadline that a loaded machine could hit.
            let expected: TransportError.Code = kind == .urlSession ? .timedOut : .connectionReset
            await expectTransportError(expected, "\(kind) \(method) on a dead connection") {
                try await transport.send(
                    request(server, "/seq", method: method.method, body: method.body),
                    options: .init(timeout: kind == .urlSession ? Self.stallDeadline : nil))
            }
            // The call has ended, so nothing more will be sent: wait for the
            // server to journal what it got, then count.
            _ = try await server.journal.waitFor(2)
            #expect(server.journal.entries.count == 2, "the request reached the server again")
        }
    }

    /// A fresh transport whose one connection has answered once and will be
    /// reset by the server when the next request arrives on it.
    private func withStaleConnection(
        _ kind: TransportKind, _ body: (MockServer, any Transport) async throws -> Void
    ) async throws {
        let stubs = try ContractLoader.parse(Array(Self.stub.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            try await kind.withFresh { transport async throws in
                _ = try await transport.send(request(server, "/seq"), options: .guarded)
                try await body(server, transport)
            }
        }
    }
}
