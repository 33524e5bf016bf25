import CourierAsyncHTTPClient
import CourierCore
import CourierCurl
import CourierMockServer
import CourierProxies
import CourierTLS
import CourierURLSession
import Foundation
import HTTPTypes
import Testing

/// `CONNECT` tunnels through squid to an HTTPS origin, a refused tunnel, and
/// what only some transports can do (Digest, the checks when a transport is
/// made): a suite of its own, one squid at a time, beside the others.
@Suite(.serialized)
struct ProxyTunnelTests: ProxySuite {
    // MARK: - Tunnels

    @Test(arguments: kinds)
    func httpsGoesThroughATunnelThatCarriesNoProxyCredentialsInside(kind: TransportKind) async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        let origin = try await TLSOrigin.start(fixture)
        let originPort = origin.port
        let url = "https://127.0.0.1:\(originPort)"
        let (status, log) = try await withSquid(.required) { squid in
            try await withTransport(
                kind, through(squid.port, Self.good), tls: TLSSettings(caBundlePath: fixture.caPath)
            ) {
                client in
                try await client.send(Self.get(url, headers: [.authorization: "Bearer origin-token"]))
                    .statusCode
            }
        }
        await origin.stop()
        #expect(status == 200)
        // Inside the tunnel: the origin's credential, never the proxy's.
        let arrived = try #require(origin.requests.first)
        #expect(arrived.value("Authorization") == "Bearer origin-token")
        #expect(arrived.value("Proxy-Authorization") == nil)
        #expect(arrived.value("Via") == nil)
        // On the CONNECT: the proxy's credential, never the origin's.
        let connect = try #require(log.first { $0.method == "CONNECT" && $0.status == 200 })
        #expect(connect.url == "127.0.0.1:\(originPort)")
        #expect(connect.proxyAuthorization?.hasPrefix("Basic ") == true)
        #expect(connect.authorization == nil)
        #expect(log.allSatisfy { $0.authorization == nil })
    }

    @Test(arguments: kinds)
    func aRefusedConnectCarriesTheProxysStatus(kind: TransportKind) async throws {
        let (closed, (error, log)) = try await withRefusingPort { closed in
            (
                closed,
                try await withSquid { squid in
                    await #expect(throws: CourierError.self) {
                        try await withTransport(kind, through(squid.port)) { client in
                            try await client.send(Self.get("https://127.0.0.1:\(closed)"))
                        }
                    }
                }
            )
        }
        #expect(Self.transportCode(error) == .proxyTunnelFailed)
        if kind.isCurl {
            #expect((error?.underlying as? TransportError)?.message.contains("503") == true)
        }
        #expect(log.map(\.description) == ["CONNECT 127.0.0.1:\(closed) 503"])
    }

    @Test(arguments: kinds)
    func aTunnelWithoutCredentialsIsATypedError(kind: TransportKind) async throws {
        let (error, _) = try await withRefusingPort { closed in
            try await withSquid(.required) { squid in
                await #expect(throws: CourierError.self) {
                    try await withTransport(kind, through(squid.port)) { client in
                        try await client.send(Self.get("https://127.0.0.1:\(closed)"))
                    }
                }
            }
        }
        #expect(Self.transportCode(error) == .proxyAuthenticationFailed)
    }

    // MARK: - What only some transports can do

    @Test(arguments: TransportKind.among(.curl, .curlPollLoop))
    func digestCredentialsAnswerTheProxysChallenge(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            let digest = Proxy.Credentials(
                user: SquidProxy.user, password: SquidProxy.password, scheme: .digest)
            let (status, log) = try await withSquid(.required) { squid in
                try await withTransport(kind, through(squid.port, digest)) { client in
                    try await client.send(Self.get("\(origin.baseURL)/anything/digest")).statusCode
                }
            }
            #expect(status == 200)
            // The challenge, then the answer: no password on the wire.
            #expect(log.map { $0.status } == [407, 200])
            let answer = try #require(log.last?.proxyAuthorization)
            #expect(answer.hasPrefix("Digest ") && answer.contains("response="))
            #expect(!answer.contains(SquidProxy.password))
        }
    }

    @Test func whatATransportCannotDoFailsWhenItIsMade() throws {
        let digest = Proxy(
            .http, host: "127.0.0.1", port: 1, credentials: .init(user: "u", password: "p", scheme: .digest))
        #expect(throws: TransportError.self) {
            _ = try AsyncHTTPClientTransport(configuration: .init(proxy: .through(digest)))
        }
        #expect(throws: TransportError.self) {
            _ = try AsyncHTTPClientTransport(configuration: .init(proxy: .through(Proxy(.https, host: "p"))))
        }
        #if canImport(FoundationNetworking)
            let error = #expect(throws: TransportError.self) {
                _ = try URLSessionTransport(proxy: .through(Proxy(.http, host: "127.0.0.1", port: 1)))
            }
            #expect(error?.code == .unsupported)
            #expect(error?.message.contains("proxy") == true)
        #endif
    }
}
