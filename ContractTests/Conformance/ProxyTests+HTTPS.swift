import CourierCore
import CourierMockServer
import CourierProxies
import CourierTLS
import Foundation
import Testing

/// An HTTPS proxy — TLS from the client to squid's `https_port` — on the
/// transports that can speak TLS to a proxy (libcurl's; async-http-client
/// refuses one when made, as `whatATransportCannotDoFailsWhenItIsMade`
/// shows). The proxy's trust is its own: its CA and pins are the proxy's
/// `TLSSettings`, never the transport's, which are the origin's.
@Suite(.serialized)
struct ProxyTLSTests: ProxySuite {
    static let curlKinds = TransportKind.among(.curl, .curlPollLoop)

    static func httpsProxy(
        _ port: Int, trusting fixture: TLSFixture?, pins: [String] = [], credentials: Proxy.Credentials? = nil
    ) -> ProxyConfiguration {
        let tls = TLSSettings(caBundlePath: fixture?.caPath, pinnedPublicKeys: pins)
        return .through(Proxy(.https, host: "127.0.0.1", port: port, credentials: credentials, tls: tls))
    }

    @Test(arguments: curlKinds)
    func anHTTPSProxyCarriesPlainRequestsAndTunnelsOverTLS(kind: TransportKind) async throws {
        let proxyFixture = try await TLSFixture.make()
        let originFixture = try await TLSFixture.make()
        defer {
            proxyFixture.remove()
            originFixture.remove()
        }
        let tlsOrigin = try await TLSOrigin.start(originFixture)
        let tunnelled = "127.0.0.1:\(tlsOrigin.port)"
        try await withMockServer { origin async throws in
            let (statuses, log) = try await withSquid(.required, tls: proxyFixture) { squid in
                let proxy = Self.httpsProxy(squid.port, trusting: proxyFixture, credentials: Self.good)
                // The transport trusts the origin's CA only; the proxy's is the proxy's.
                return try await withTransport(
                    kind, proxy, tls: TLSSettings(caBundlePath: originFixture.caPath)
                ) { client in
                    [
                        try await client.send(Self.get("\(origin.baseURL)/anything/plain")).statusCode,
                        try await client.send(Self.get("https://\(tunnelled)")).statusCode,
                    ]
                }
            }
            await tlsOrigin.stop()
            #expect(statuses == [200, 200])
            let answered = log.filter { $0.status != 407 }
            #expect(
                answered.map(\.description) == [
                    "GET \(origin.baseURL)/anything/plain 200", "CONNECT \(tunnelled) 200",
                ])
            #expect(answered.allSatisfy { $0.proxyAuthorization?.hasPrefix("Basic ") == true })
            #expect(origin.journal.entries.first?.request.header("Proxy-Authorization") == nil)
            #expect(tlsOrigin.requests.first?.value("Proxy-Authorization") == nil)
        }
    }

    @Test(arguments: curlKinds)
    func anHTTPSProxyIsTrustedByItsOwnSettingsOnly(kind: TransportKind) async throws {
        let proxyFixture = try await TLSFixture.make()
        let otherFixture = try await TLSFixture.make()
        defer {
            proxyFixture.remove()
            otherFixture.remove()
        }
        try await withMockServer { origin async throws in
            let url = "\(origin.baseURL)/anything/trust"
            let (outcomes, log) = try await withSquid(tls: proxyFixture) { squid in
                var outcomes: [String] = []
                // The proxy's CA given to the transport (the origin's trust)
                // and not to the proxy; a pin the proxy's key does not meet;
                // then its own CA and its own pin.
                let cases: [(ProxyConfiguration, TLSSettings)] = [
                    (
                        Self.httpsProxy(squid.port, trusting: nil),
                        TLSSettings(caBundlePath: proxyFixture.caPath)
                    ),
                    (
                        Self.httpsProxy(squid.port, trusting: proxyFixture, pins: [otherFixture.serverPin]),
                        .system
                    ),
                    (
                        Self.httpsProxy(squid.port, trusting: proxyFixture, pins: [proxyFixture.serverPin]),
                        .system
                    ),
                ]
                for (proxy, tls) in cases {
                    do {
                        let status = try await withTransport(kind, proxy, tls: tls) { client in
                            try await client.send(Self.get(url)).statusCode
                        }
                        outcomes.append("\(status)")
                    } catch let error as CourierError {
                        let transportError = error.underlying as? TransportError
                        let namesProxy = transportError?.message.contains("TLS to the proxy") == true
                        outcomes.append("\(transportError?.code.description ?? "?") \(namesProxy)")
                    }
                }
                return outcomes
            }
            #expect(outcomes == ["tls true", "tls true", "200"])
            #expect(log.map(\.description) == ["GET \(url) 200"])
            #expect(origin.journal.entries.count == 1)
        }
    }
}
