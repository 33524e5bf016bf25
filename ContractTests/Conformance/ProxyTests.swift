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

/// Requests through a real squid on every transport that can go through a
/// proxy: plain `http://` requests in absolute form, `https://` ones through
/// a `CONNECT` tunnel to an HTTPS origin, with and without the proxy's
/// credentials. Each case reads both records — squid's access log (what the
/// proxy was sent, and with which credential fields) and the origin's own
/// (what came out of the proxy) — never what Courier says it sent. Each
/// case has a squid of its own; one case at a time, so that the suite adds
/// one proxy's load to a busy run, not thirty (the suites of
/// `ProxyTests+HTTPS.swift` and `ProxyTests+Credentials.swift` run beside
/// this one, each a squid at a time).
@Suite(.serialized)
struct ProxyTests: ProxySuite {
    // MARK: - Plain requests

    @Test(arguments: kinds)
    func aPlainRequestGoesThroughTheProxyInAbsoluteForm(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            let (status, log) = try await withSquid { squid in
                try await withTransport(kind, through(squid.port)) { client in
                    try await client.send(Self.get("\(origin.baseURL)/anything/through")).statusCode
                }
            }
            #expect(status == 200)
            let arrived = try #require(origin.journal.entries.first)
            #expect(arrived.request.path == "/anything/through")
            if kind == .asyncHTTPClient {
                // async-http-client tunnels every request, http:// ones too.
                #expect(log.map(\.description) == ["CONNECT 127.0.0.1:\(origin.port) 200"])
                #expect(arrived.request.header("Via") == nil)
            } else {
                // The proxy's mark on what it forwarded: from the proxy, not from us.
                #expect(arrived.request.header("Via")?.contains("squid") == true)
                #expect(log.map(\.description) == ["GET \(origin.baseURL)/anything/through 200"])
            }
        }
    }

    @Test(arguments: kinds)
    func proxyCredentialsGoToTheProxyAndNeverToTheOrigin(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            let (status, log) = try await withSquid(.required) { squid in
                try await withTransport(kind, through(squid.port, Self.good)) { client in
                    try await client.send(
                        Self.get(
                            "\(origin.baseURL)/anything/guarded",
                            headers: [.authorization: "Bearer origin-token"])
                    ).statusCode
                }
            }
            #expect(status == 200)
            let arrived = try #require(origin.journal.entries.first)
            #expect(arrived.request.header("Proxy-Authorization") == nil)
            #expect(arrived.request.header("Authorization") == "Bearer origin-token")
            let request = try #require(log.last)
            #expect(request.status == 200)
            #expect(request.proxyAuthorization?.hasPrefix("Basic ") == true)
        }
    }

    @Test(arguments: kinds)
    func missingOrWrongProxyCredentialsAreTypedErrors(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            let wrong = Proxy.Credentials(user: SquidProxy.user, password: "guess")
            let (codes, _) = try await withSquid(.required) { squid in
                var codes: [TransportError.Code?] = []
                for credentials in [nil, wrong] {
                    let error = await #expect(throws: CourierError.self) {
                        try await withTransport(kind, through(squid.port, credentials)) { client in
                            try await client.send(Self.get("\(origin.baseURL)/never"))
                        }
                    }
                    codes.append(Self.transportCode(error))
                }
                return codes
            }
            #expect(codes == [.proxyAuthenticationFailed, .proxyAuthenticationFailed])
            #expect(origin.journal.entries.isEmpty)
        }
    }

    @Test(arguments: kinds)
    func theNoProxyListGoesDirect(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            let (status, log) = try await withSquid { squid in
                let proxy = ProxyConfiguration.through(
                    Proxy(.http, host: "127.0.0.1", port: squid.port), except: try NoProxyList("127.0.0.0/8"))
                return try await withTransport(kind, proxy) { client in
                    try await client.send(Self.get("\(origin.baseURL)/anything/direct")).statusCode
                }
            }
            #expect(status == 200)
            #expect(log.isEmpty)
            #expect(origin.journal.entries.first?.request.header("Via") == nil)
        }
    }

    @Test(arguments: kinds)
    func anUnreachableProxyIsATypedErrorNeverADirectConnection(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            let error = try await withRefusingPort { closed in
                await #expect(throws: CourierError.self) {
                    try await withTransport(kind, through(closed)) { client in
                        try await client.send(Self.get("\(origin.baseURL)/never"))
                    }
                }
            }
            #expect(Self.transportCode(error) == .proxyUnreachable)
            #expect(origin.journal.entries.isEmpty)
        }
    }
}

/// What the proxy suites share: the transports that go through proxies, a
/// client on one of them routed by a `ProxyConfiguration`, and the request
/// they send.
protocol ProxySuite {}

extension ProxySuite {
    /// The transports that go through proxies: FoundationNetworking's
    /// URLSession cannot (its own test says so).
    static var kinds: [TransportKind] { TransportKind.among(.curl, .curlPollLoop, .asyncHTTPClient) }

    static var good: Proxy.Credentials {
        Proxy.Credentials(user: SquidProxy.user, password: SquidProxy.password)
    }

    /// A transport of `kind` going through `proxy`, shut down after `body`.
    func withTransport<T: Sendable>(
        _ kind: TransportKind, _ proxy: ProxyConfiguration, tls: TLSSettings = .system,
        _ body: (APIClient) async throws -> T
    ) async throws -> T {
        func client(_ transport: any Transport) -> APIClient {
            APIClient(configuration: .init(transport: transport, validation: .anyStatus, timeout: hangGuard))
        }
        // Connect timeouts as hang guards, not deadlines: a TLS handshake
        // through squid to the origin took over libcurl's default 10 s under
        // ThreadSanitizer with the other lane and three more squids running.
        switch kind {
        case .curl, .curlPollLoop:
            var configuration = CurlTransport.Configuration(
                proxy: proxy, tls: tls, eventLoop: kind == .curl ? .automatic : .poll)
            configuration.connectTimeoutMilliseconds = 120_000
            return try await withCurlTransport(configuration: configuration) { try await body(client($0)) }
        case .asyncHTTPClient:
            let configuration = AsyncHTTPClientTransport.Configuration(
                tls: tls, connectTimeout: .seconds(120), proxy: proxy)
            return try await withAsyncHTTPClientTransport(configuration: configuration) {
                try await body(client($0))
            }
        case .urlSession:
            throw SquidError("URLSessionTransport goes through no proxy on this platform")
        }
    }

    func through(_ port: Int, _ credentials: Proxy.Credentials? = nil) -> ProxyConfiguration {
        .through(Proxy(.http, host: "127.0.0.1", port: port, credentials: credentials))
    }

    static func get(_ url: String, headers: HTTPFields = [:]) -> Endpoint<RawResponse> {
        Endpoint(.get("/"), on: Node("origin", baseURL: url), headers: headers)
    }

    static func transportCode(_ error: CourierError?) -> TransportError.Code? {
        (error?.underlying as? TransportError)?.code
    }
}
