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

/// CurlTransport's limits on connections and on transfers handed to libcurl.
struct CurlLimitTests {
    @Test func connectionsPerHostAreCappedAndWaitingRequestsAllFinish() async throws {
        try await withMockServer(.init(journalCapacity: 5_000)) { server async throws in
            let configuration = CurlTransport.Configuration(maxConnectionsPerHost: 4, maxActiveTransfers: 16)
            try await withCurlTransport(configuration: configuration) { transport async throws in
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<2_000 {
                        group.addTask {
                            try await transport.send(
                                request(server, "/status/\(200 + index % 2)"), options: .init()
                            )
                            .statusCode
                        }
                    }
                    return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
                }
                #expect(statuses == [200: 1_000, 201: 1_000])
                #expect(Set(server.journal.entries.map(\.connectionIndex)).count <= 4)
            }
        }
    }

    @Test func aCancelledWaitingRequestLeavesTheQueue() async throws {
        let configuration = CurlTransport.Configuration(maxActiveTransfers: 1)
        try await withCurlTransport(configuration: configuration) { transport async throws in
            try await checkACancelledWaiterLeavesTheQueue(transport) { transport.load }
        }
    }
}
