import CourierAsyncHTTPClient
@_spi(Transport) import CourierCore
import CourierCurl
import CourierMockServer
import HTTPTypes
import Testing

/// A host connected to somewhere else (`hostOverrides`): the connection goes
/// to the override, the request still names the host — asserted from the
/// server's record of the `Host` field it received. CurlTransport and
/// async-http-client; FoundationNetworking has no such setting.
struct HostOverrideTests {
    static let host = "api.courier.test"

    static func send(_ transport: any Transport, to server: MockServer) async throws -> RawResponse {
        try await transport.send(
            OutgoingRequest(
                head: HTTPRequest(
                    method: .get, scheme: "http", authority: "\(host):\(server.port)", path: "/status/200")),
            options: .guarded)
    }

    static func expectHostKept(_ server: MockServer) {
        let hosts = server.journal.entries.map { $0.request.header("Host") }
        #expect(hosts == ["\(host):\(server.port)"])
    }

    @Test func curlConnectsToTheOverrideAndSendsTheHost() async throws {
        try await withMockServer { server async throws in
            let configuration = CurlTransport.Configuration(hostOverrides: [Self.host: "127.0.0.1"])
            try await withCurlTransport(configuration: configuration) { transport async throws in
                #expect(try await Self.send(transport, to: server).statusCode == 200)
            }
            Self.expectHostKept(server)
        }
    }

    @Test func asyncHTTPClientConnectsToTheOverrideAndSendsTheHost() async throws {
        try await withMockServer { server async throws in
            // A connect timeout that is a hang guard, not the 10 s default:
            // every suite at once under ThreadSanitizer missed that one.
            let configuration = AsyncHTTPClientTransport.Configuration(
                connectTimeout: hangGuard, hostOverrides: [Self.host: "127.0.0.1"])
            try await withAsyncHTTPClientTransport(configuration: configuration) { transport async throws in
                #expect(try await Self.send(transport, to: server).statusCode == 200)
            }
            Self.expectHostKept(server)
        }
    }

    /// Without an override the name does not resolve (`.test` is reserved):
    /// the override, not the system's resolver, made the calls above work.
    @Test func withoutTheOverrideTheNameDoesNotResolve() async throws {
        try await withMockServer { server async throws in
            await expectTransportError(.dnsFailure, "no override") {
                _ = try await Self.send(CurlTransport.shared, to: server)
            }
            #expect(server.journal.entries.isEmpty)
        }
    }

    @Test func aMalformedOverrideFailsWhenTheTransportIsMade() {
        for overrides in [
            ["api.courier.test:80": "127.0.0.1"], ["": "127.0.0.1"], ["a.test": "1.2.3.4, 5.6.7.8"],
        ] {
            #expect(throws: TransportError.self) {
                _ = try CurlTransport(configuration: .init(hostOverrides: overrides))
            }
        }
    }
}
