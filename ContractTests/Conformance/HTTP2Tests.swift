import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// CurlTransport over cleartext HTTP/2 with prior knowledge, on both event
/// loops: a burst of requests multiplexed on one connection, and requests
/// after it on the same connection — or, with a libcurl that breaks requests
/// on an existing prior-knowledge connection (7.88.x), every request on a
/// connection of its own, and all of them answered.
struct HTTP2Tests {
    static let loops: [CurlTransport.Configuration.EventLoop] = [.automatic, .poll]

    static func request(_ port: Int, _ index: Int) -> OutgoingRequest {
        OutgoingRequest(
            head: HTTPRequest(
                method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: "/r/\(index)"))
    }

    @Test(arguments: loops)
    func priorKnowledgeCarriesABurstAndWhatFollows(loop: CurlTransport.Configuration.EventLoop) async throws {
        let server = try await HTTP2Server.start()
        do {
            try await exchange(with: server, loop: loop)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func exchange(with server: HTTP2Server, loop: CurlTransport.Configuration.EventLoop) async throws
    {
        let burst = 50
        let after = 10
        let configuration = CurlTransport.Configuration(httpVersion: .http2PriorKnowledge, eventLoop: loop)
        try await withCurlTransport(configuration: configuration) { transport async throws in
            let port = server.port
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<burst {
                    group.addTask {
                        let response = try await transport.send(Self.request(port, index), options: .guarded)
                        #expect(response.statusCode == 200)
                        #expect(response.metrics.httpVersion == "2")
                        #expect(response.body.bytes == Array("/r/\(index)".utf8))
                    }
                }
                try await group.waitForAll()
            }
            for index in burst..<burst + after {
                let response = try await transport.send(Self.request(port, index), options: .guarded)
                #expect(response.body.bytes == Array("/r/\(index)".utf8))
            }
        }
        // What this libcurl can do, decided here from its version string —
        // not from the check the transport uses, which this test checks.
        let reuses = Self.reusesPriorKnowledgeConnections(version: CurlFeatures.current.version)
        #expect(
            CurlFeatures.current.http2PriorKnowledgeReusesConnections == reuses,
            "the transport's check disagrees for libcurl \(CurlFeatures.current.version)")
        // scripts/check-newer-libcurl loads a libcurl without 7.88's bug: the reusing path must run.
        if ProcessInfo.processInfo.environment["COURIER_EXPECT_H2C_REUSE"] == "1" {
            #expect(reuses, "libcurl \(CurlFeatures.current.version) was loaded, not a newer one")
        }
        #expect(server.connections == (reuses ? 1 : burst + after))
    }

    /// libcurl 7.88.0 and 7.88.1 broke requests sent on an existing
    /// prior-knowledge connection ("Error in the HTTP2 framing layer"; fixed
    /// in 8.0.0); every other release reuses them.
    static func reusesPriorKnowledgeConnections(version: String) -> Bool {
        let parts = version.split(separator: ".").prefix(2).compactMap { Int($0) }
        return parts != [7, 88]
    }

    @Test func theVersionRuleReadsVersionStrings() {
        #expect(!Self.reusesPriorKnowledgeConnections(version: "7.88.1"))
        #expect(!Self.reusesPriorKnowledgeConnections(version: "7.88.0"))
        #expect(Self.reusesPriorKnowledgeConnections(version: "8.14.1"))
        #expect(Self.reusesPriorKnowledgeConnections(version: "7.87.0"))
    }
}
