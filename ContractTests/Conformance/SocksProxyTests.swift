import CourierCore
import CourierMockServer
import CourierProxies
import Testing

/// Requests through a real dante SOCKS5 server on every transport that
/// speaks SOCKS5: the origin's record shows the request arrived and dante's
/// log the connection it made; a name is resolved by the proxy, never by
/// the client; each failure is typed.
@Suite(.serialized)
struct SocksProxyTests {
    static func socks(_ port: Int) -> ProxyConfiguration {
        .through(Proxy(.socks5, host: "127.0.0.1", port: port))
    }

    @Test(arguments: ProxyTests.kinds)
    func aRequestGoesThroughSOCKS5AndTheProxyResolvesTheName(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            let (status, log) = try await withDante { dante in
                try await ProxyTests().withTransport(kind, Self.socks(dante.port)) { client in
                    try await client.send(ProxyTests.get("http://localhost:\(origin.port)/anything/socks"))
                        .statusCode
                }
            }
            #expect(status == 200)
            #expect(origin.journal.entries.map(\.request.path) == ["/anything/socks"])
            // dante's record of the connection it made for us, to the origin.
            #expect(log.contains { $0.contains("pass(") && $0.hasSuffix(".\(origin.port)") }, "\(log)")
        }
    }

    /// A name nobody can resolve: resolved by the client, it would fail as
    /// `.dnsFailure` before the proxy heard of it; sent to the proxy, it
    /// fails there, as the proxy's typed failure.
    @Test(arguments: ProxyTests.kinds)
    func theProxyResolvesTheNameNotTheClient(kind: TransportKind) async throws {
        let (error, _) = try await withDante { dante in
            await #expect(throws: CourierError.self) {
                try await ProxyTests().withTransport(kind, Self.socks(dante.port)) { client in
                    try await client.send(ProxyTests.get("http://courier-unknown.invalid"))
                }
            }
        }
        #expect(ProxyTests.transportCode(error) == .socksFailed, "\(String(describing: error))")
    }

    @Test(arguments: ProxyTests.kinds)
    func aConnectionTheProxyCannotMakeIsASocksFailure(kind: TransportKind) async throws {
        let (error, _) = try await withRefusingPort { closed in
            try await withDante { dante in
                await #expect(throws: CourierError.self) {
                    try await ProxyTests().withTransport(kind, Self.socks(dante.port)) { client in
                        try await client.send(ProxyTests.get("http://127.0.0.1:\(closed)"))
                    }
                }
            }
        }
        #expect(ProxyTests.transportCode(error) == .socksFailed, "\(String(describing: error))")
    }

    @Test(arguments: ProxyTests.kinds)
    func anUnreachableSocksProxyIsTyped(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            let error = try await withRefusingPort { closed in
                await #expect(throws: CourierError.self) {
                    try await ProxyTests().withTransport(kind, Self.socks(closed)) { client in
                        try await client.send(ProxyTests.get("\(origin.baseURL)/anything/never"))
                    }
                }
            }
            #expect(ProxyTests.transportCode(error) == .proxyUnreachable)
            #expect(origin.journal.entries.isEmpty)
        }
    }
}
