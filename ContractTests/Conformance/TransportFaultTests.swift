@_spi(Transport) import CourierCore
import CourierMockServer
import HTTPTypes
import Testing

/// Every mock-server fault, over every transport: each ends in the expected
/// response or typed error, and none hangs (every request has a deadline).
struct TransportFaultTests {
    /// What a fault must produce.
    enum Outcome: Sendable, CustomStringConvertible {
        /// A complete response with this status and the stub's body.
        case response(Int)
        /// A ``TransportError`` with one of these codes.
        case failure(Set<TransportError.Code>)
        /// Either, depending on when the peer's close is seen (a documented gap).
        case responseOrFailure(Int, Set<TransportError.Code>)

        static func failure(_ code: TransportError.Code) -> Outcome { .failure([code]) }

        /// The request's deadline: short where the fault is a stall that only a
        /// timeout ends, long (a safety net, never reached) everywhere else, so
        /// a loaded machine cannot turn a slow answer into a failure.
        var deadline: Duration {
            if case .failure(let codes) = self, codes.contains(.timedOut) { return .seconds(2) }
            // The hang guard: ThreadSanitizer on a busy two-core machine has
            // taken over two minutes to read an endless body's first megabyte.
            return hangGuard
        }

        var description: String {
            switch self {
            case .response(let status): "response \(status)"
            case .failure(let codes): "failure \(codes.map(\.rawValue).sorted())"
            case .responseOrFailure(let status, let codes):
                "response \(status) or failure \(codes.map(\.rawValue).sorted())"
            }
        }
    }

    /// A fault as a contract writes it, the request that meets it, and the outcome.
    struct Case: Sendable, CustomTestStringConvertible {
        var fault: String
        var outcome: Outcome
        /// Bytes of request body to send (a POST when non-zero).
        var uploadBytes = 0
        /// What AsyncHTTPClientTransport does instead, where that is a gap
        /// documented in `Modules/CourierAsyncHTTPClient/README.md`.
        var asyncHTTPClientGap: Outcome?

        func outcome(for kind: TransportKind) -> Outcome {
            kind == .asyncHTTPClient ? asyncHTTPClientGap ?? outcome : outcome
        }

        var testDescription: String { fault }
    }

    static let body = "0123456789abcdefghijklmnopqrstuvwxyz"

    static let cases: [Case] = [
        Case(fault: #""resetBeforeHeaders""#, outcome: .failure(.connectionReset)),
        Case(fault: #""closeBeforeHeaders""#, outcome: .failure(.emptyResponse)),
        Case(
            fault: #"{"name": "garbageThenClose", "bytes": 64, "seed": 3}"#, outcome: .failure(.protocolError)
        ),
        Case(fault: #""stall""#, outcome: .failure(.timedOut)),
        Case(fault: #""malformedChunk""#, outcome: .failure(.protocolError)),
        Case(fault: #"{"name": "closeMidBody", "afterBytes": 3}"#, outcome: .failure(.connectionReset)),
        Case(fault: #"{"name": "resetMidBody", "afterBytes": 3}"#, outcome: .failure(.connectionReset)),
        Case(fault: #"{"name": "contentLengthMismatch", "extra": 5}"#, outcome: .failure(.connectionReset)),
        Case(fault: #"{"name": "stallMidBody", "afterBytes": 3}"#, outcome: .failure(.timedOut)),
        Case(fault: #"{"name": "slowHeaders", "delayMs": 50}"#, outcome: .response(200)),
        Case(fault: #"{"name": "throttleBody", "bytes": 8, "perMs": 5}"#, outcome: .response(200)),
        Case(fault: #"{"name": "dribble", "chunks": 6, "overMs": 30}"#, outcome: .response(200)),
        // async-http-client keeps sending a body after a 2xx and fails when the
        // server has closed: the answer is lost, as a typed error (or, when the
        // close comes late enough, the answer arrives).
        Case(
            fault: #""doNotReadRequestBody""#, outcome: .response(200), uploadBytes: 4 << 20,
            asyncHTTPClientGap: .responseOrFailure(200, [.connectionReset])),
        Case(
            fault: #""closeDuringRequestBody""#, outcome: .failure([.connectionReset, .emptyResponse]),
            uploadBytes: 4 << 20),
        Case(fault: #""halfCloseOutput""#, outcome: .response(200)),
        Case(fault: #""halfCloseInput""#, outcome: .response(200)),
        Case(fault: #""closeAfterResponse""#, outcome: .response(200)),
        Case(fault: #""duplicateContentLength""#, outcome: .failure(.protocolError)),
        // RFC 9112 §6.3: Content-Length beside Transfer-Encoding is refused (desync class).
        Case(fault: #""contentLengthAndChunked""#, outcome: .failure(.protocolError)),
        Case(fault: #""invalidStatusLine""#, outcome: .failure(.protocolError)),
        Case(fault: #"{"name": "oversizedHeaders", "bytes": 300000}"#, outcome: .failure(.protocolError)),
        Case(fault: #""endlessHeaders""#, outcome: .failure(.protocolError)),
        Case(fault: #""endlessBody""#, outcome: .failure(.bodyTooLarge)),
    ]

    @Test func everyFaultHasACase() {
        let covered = Self.cases.map(\.fault)
        let missing = MockFault.allNames.filter { name in !covered.contains { $0.contains("\"\(name)\"") } }
        #expect(missing.isEmpty, "faults without a conformance case: \(missing)")
    }

    @Test(arguments: TransportKind.allCases, Self.cases)
    func responseFault(kind: TransportKind, fault: Case) async throws {
        let json = #"""
            {"id": "f", "request": {"urlPath": "/f"},
             "response": {"body": "\#(Self.body)", "fault": \#(fault.fault)}}
            """#
        let stubs = try ContractLoader.parse(Array(json.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            // A fresh transport: a fault must not meet a connection another test left open.
            try await kind.withFresh { transport async throws in
                let body =
                    fault.uploadBytes > 0
                    ? RequestBody(bytes: [UInt8](repeating: 7, count: fault.uploadBytes)) : nil
                let outcome = await Self.outcome(
                    of: try await transport.send(
                        request(server, "/f", method: body == nil ? .get : .post, body: body),
                        options: .init(timeout: fault.outcome(for: kind).deadline, maxBodySize: 1 << 20)))
                Self.check(outcome, fault.outcome(for: kind), "\(kind) \(fault.fault)")
                if fault.fault == #""closeAfterResponse""# {
                    // The next request must not fail on the closed connection.
                    let next = try await transport.send(request(server, "/status/204"), options: .guarded)
                    #expect(next.statusCode == 204)
                    let connections = server.journal.entries.map(\.connectionIndex)
                    #expect(connections.count == 2 && connections[0] != connections[1])
                }
            }
        }
    }

    @Test(
        arguments: TransportKind.allCases,
        [
            (ConnectionFault.stallAfterAccept, Set([TransportError.Code.timedOut])),
            // libcurl may see the reset while it checks the new connection and
            // report a failed connect: either way no request byte was answered.
            (.resetAfterAccept, Set([.connectionReset, .connectionFailed])),
        ])
    func acceptFault(kind: TransportKind, fault: (ConnectionFault, Set<TransportError.Code>)) async throws {
        try await withMockServer { server async throws in
            server.queueConnectionFaults([fault.0])
            var codes = fault.1
            if kind == .asyncHTTPClient, fault.0 == .resetAfterAccept {
                // async-http-client may report only that the connection closed
                // before an answer (remoteConnectionClosed), not how.
                codes.insert(.emptyResponse)
            }
            try await kind.withFresh { transport async throws in
                let outcome = await Self.outcome(
                    of: try await transport.send(
                        request(server, "/status/200"),
                        options: .init(timeout: Outcome.failure(codes).deadline)))
                Self.check(outcome, .failure(codes), "\(kind) \(fault.0)")
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func refusedConnection(kind: TransportKind) async throws {
        try await withMockServer { server async throws in
            try await server.refuseConnections()
            try await kind.withFresh { transport async throws in
                let outcome = await Self.outcome(
                    of: try await transport.send(
                        request(server, "/status/200"), options: .guarded))
                Self.check(outcome, .failure(.connectionFailed), "\(kind) refused")
            }
        }
    }

    private static func outcome(of send: @autoclosure () async throws -> RawResponse) async -> Result<
        RawResponse, any Error
    > {
        do { return .success(try await send()) } catch { return .failure(error) }
    }

    private static func check(_ result: Result<RawResponse, any Error>, _ expected: Outcome, _ label: String)
    {
        switch (result, expected) {
        case (.success(let response), .response(let status)),
            (.success(let response), .responseOrFailure(let status, _)):
            #expect(response.statusCode == status, "\(label)")
            #expect(response.body.bytes == Array(body.utf8), "\(label)")
        case (.failure(let error as TransportError), .failure(let codes)),
            (.failure(let error as TransportError), .responseOrFailure(_, let codes)):
            #expect(codes.contains(error.code), "\(label): \(error)")
        case (.success(let response), _):
            Issue.record("\(label): expected \(expected), got status \(response.statusCode)")
        case (.failure(let error), _):
            Issue.record("\(label): expected \(expected), got \(type(of: error)) \(error)")
        }
    }
}
