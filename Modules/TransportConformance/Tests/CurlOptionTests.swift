import CourierCore
import CourierCurl
import CourierMockServer
import Testing

/// CurlTransport's connection settings take effect.
struct CurlOptionTests {
    static let stubs = #"""
        {"mappings": [
          {"id": "trickle", "request": {"urlPath": "/trickle"},
           "response": {"body": "0123456789", "fault": {"name": "stallMidBody", "afterBytes": 2}}}
        ]}
        """#

    func expectFailure(
        _ configuration: CurlTransport.Configuration, _ server: MockServer, _ path: String
    ) async throws -> TransportError? {
        try await withCurlTransport(configuration: configuration) { transport async throws in
            do {
                _ = try await transport.send(request(server, path), options: .init())
                return nil
            } catch let error as TransportError {
                return error
            }
        }
    }

    @Test func lowSpeedLimitAbortsATrickle() async throws {
        let stubs = try ContractLoader.parse(Array(Self.stubs.utf8), file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let error = try await expectFailure(.init(lowSpeedLimit: (1000, 1)), server, "/trickle")
            #expect(error?.code == .timedOut)
        }
    }

    @Test func http2PriorKnowledgeIsSpokenEvenToAnHTTP1Server() async throws {
        try await withMockServer { server async throws in
            let error = try await expectFailure(
                .init(httpVersion: .http2PriorKnowledge), server, "/status/200")
            #expect(error != nil)
            #expect(server.journal.entries.isEmpty)
            let ok = try await withCurlTransport(configuration: .init(httpVersion: .http1)) {
                transport async throws in
                try await transport.send(request(server, "/status/200"), options: .init())
            }
            #expect(ok.metrics.httpVersion == "1.1")
        }
    }

    @Test func anExplicitProxyIsUsed() async throws {
        try await withMockServer { proxy async throws in
            try await proxy.refuseConnections()
            try await withMockServer { server async throws in
                let error = try await expectFailure(.init(proxy: proxy.baseURL), server, "/status/200")
                #expect(error?.code == .connectionFailed)
                #expect(server.journal.entries.isEmpty)
            }
        }
    }
}
