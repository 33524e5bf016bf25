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
                _ = try await transport.send(request(server, path), options: .guarded)
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
                try await transport.send(request(server, "/status/200"), options: .guarded)
            }
            #expect(ok.metrics.httpVersion == "1.1")
        }
    }
}

/// CurlTransport's limits on connections and on transfers handed to libcurl,
/// over both event loops.
struct CurlLimitTests {
    static let loops: [CurlTransport.Configuration.EventLoop] = [.automatic, .poll]

    @Test func theDefaultLoopIsEpollOnLinuxAndThePollLoopStaysSelectable() async throws {
        try await withCurlTransport { transport async throws in
            #if os(Linux)
                #expect(transport.eventLoop == .epoll)
            #else
                #expect(transport.eventLoop == .poll)
            #endif
        }
        try await withCurlTransport(configuration: .init(eventLoop: .poll)) { transport async throws in
            #expect(transport.eventLoop == .poll)
        }
    }

    @Test(arguments: loops)
    func connectionsPerHostAreCappedAndWaitingRequestsAllFinish(
        loop: CurlTransport.Configuration.EventLoop
    ) async throws {
        try await withMockServer(.init(journalCapacity: 5_000)) { server async throws in
            let configuration = CurlTransport.Configuration(
                maxConnectionsPerHost: 4, maxActiveTransfers: 16, eventLoop: loop)
            try await withCurlTransport(configuration: configuration) { transport async throws in
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<2_000 {
                        group.addTask {
                            try await transport.send(
                                request(server, "/status/\(200 + index % 2)"), options: .guarded
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

    /// Sockets come and go in numbers: 64 requests held open at once, all
    /// cancelled (their connections closed, their descriptor numbers free
    /// for the next sockets), then 64 at once again and 64 one after
    /// another, which reuse the idle connections and open none.
    @Test(arguments: loops)
    func socketsComeAndGoAndIdleConnectionsAreReused(loop: CurlTransport.Configuration.EventLoop)
        async throws
    {
        let count = 64
        let stubs = try ContractLoader.parse(
            Array(#"{"id": "s", "request": {"urlPath": "/stall"}, "response": {"fault": "stall"}}"#.utf8),
            file: "<test>")
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let configuration = CurlTransport.Configuration(
                maxConnectionsPerHost: count, maxConnections: count, eventLoop: loop)
            try await withCurlTransport(configuration: configuration) { transport async throws in
                let held = (0..<count).map { _ in
                    Task { try await transport.send(request(server, "/stall"), options: .guarded) }
                }
                _ = try await server.journal.waitFor(count)
                for task in held { task.cancel() }
                for task in held {
                    await expectTransportError(.cancelled, "a held request") { try await task.value }
                }
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<count {
                        group.addTask {
                            try await transport.send(request(server, "/status/200"), options: .guarded)
                                .statusCode
                        }
                    }
                    for try await status in group { #expect(status == 200) }
                }
                let connections = { Set(server.journal.entries.map(\.connectionIndex)) }
                let opened = connections()
                #expect(opened.count > count)
                for _ in 0..<count {
                    let response = try await transport.send(request(server, "/status/204"), options: .guarded)
                    #expect(response.statusCode == 204)
                    #expect(response.metrics.connectionReused == true)
                }
                #expect(connections() == opened)
            }
        }
    }

    @Test(arguments: loops)
    func aCancelledWaitingRequestLeavesTheQueue(loop: CurlTransport.Configuration.EventLoop) async throws {
        let configuration = CurlTransport.Configuration(maxActiveTransfers: 1, eventLoop: loop)
        try await withCurlTransport(configuration: configuration) { transport async throws in
            try await checkACancelledWaiterLeavesTheQueue(transport) { transport.load }
        }
    }
}
