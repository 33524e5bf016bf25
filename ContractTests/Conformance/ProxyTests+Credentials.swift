import CourierCore
import CourierMockServer
import CourierProxies
import Foundation
import HTTPTypes
import Testing

/// Where credentials go on the way through a proxy, from squid's record and
/// the origin's: a redirect never changes which proxy credentials are sent
/// (nor lets the origin's cross to another origin), each hop chooses its
/// route again, and a request's own `Proxy-Authorization` is refused.
@Suite(.serialized)
struct ProxyRedirectTests: ProxySuite {
    /// `/redirect-to` on `origin`, sending the client to `target`.
    static func redirect(_ origin: MockServer, to target: String) -> String {
        let query = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        return "\(origin.baseURL)/redirect-to?url=\(query)"
    }

    @Test(arguments: kinds)
    func aRedirectKeepsTheProxysCredentialsAndDropsTheOrigins(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            // localhost is another origin than 127.0.0.1: a cross-origin hop.
            let target = "http://localhost:\(origin.port)/anything/after"
            let (status, log) = try await withSquid(.required) { squid in
                try await withTransport(kind, through(squid.port, Self.good)) { client in
                    let endpoint = Endpoint<RawResponse>(
                        .get(""), on: Node("origin", baseURL: Self.redirect(origin, to: target)),
                        headers: [.authorization: "Bearer origin-token"])
                    return try await client.send(endpoint).statusCode
                }
            }
            #expect(status == 200)
            let arrived = origin.journal.entries.map(\.request)
            #expect(arrived.map(\.path) == ["/redirect-to", "/anything/after"])
            #expect(arrived.first?.header("Authorization") == "Bearer origin-token")
            #expect(arrived.last?.header("Authorization") == nil)
            #expect(arrived.allSatisfy { $0.header("Proxy-Authorization") == nil })
            // Both hops went through the proxy with the same credential
            // (squid logs a URL without its query, a tunnel when it closes).
            let answered = log.filter { $0.status != 407 }
            if kind == .asyncHTTPClient {
                #expect(
                    answered.map(\.description).sorted() == [
                        "CONNECT 127.0.0.1:\(origin.port) 200", "CONNECT localhost:\(origin.port) 200",
                    ])
            } else {
                #expect(
                    answered.map(\.description) == [
                        "GET \(origin.baseURL)/redirect-to? 302", "GET \(target) 200",
                    ])
                // The origin's credential went through the proxy to its own
                // origin, and no further.
                #expect(answered.first?.authorization == "Bearer origin-token")
            }
            #expect(answered.last?.authorization == nil)
            let credentials = Set(answered.map(\.proxyAuthorization))
            #expect(credentials.count == 1)
            #expect(credentials.first??.hasPrefix("Basic ") == true)
        }
    }

    @Test(arguments: kinds)
    func eachHopOfARedirectChoosesItsOwnRoute(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            let target = "http://localhost:\(origin.port)/anything/direct"
            let (status, log) = try await withSquid { squid in
                let proxy = Proxy(.http, host: "127.0.0.1", port: squid.port)
                // 127.0.0.1 through the proxy, localhost directly.
                let choice = ProxyConfiguration.choosing { target in
                    target.host == "localhost" ? nil : proxy
                }
                return try await withTransport(kind, choice) { client in
                    try await client.send(Self.get(Self.redirect(origin, to: target))).statusCode
                }
            }
            #expect(status == 200)
            #expect(log.count == 1)
            #expect(log.first?.url.contains("127.0.0.1:\(origin.port)") == true)
            let arrived = origin.journal.entries.map(\.request)
            #expect(arrived.map(\.path) == ["/redirect-to", "/anything/direct"])
            // The proxy marks what it forwarded; the direct hop has no mark.
            #expect(arrived.last?.header("Via") == nil)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aRequestsOwnProxyAuthorizationIsRefusedAndNothingIsSent(kind: TransportKind) async throws {
        try await withMockServer { origin async throws in
            let endpoint = Self.get(
                "\(origin.baseURL)/anything/never", headers: [.proxyAuthorization: "Basic c3RvbGVu"])
            let error = await #expect(throws: CourierError.self) {
                try await APIClient(configuration: .init(transport: kind.transport)).send(endpoint)
            }
            #expect(error?.code == .invalidHeader)
            #expect(error?.description.contains("c3RvbGVu") == false)
            #expect(origin.journal.entries.isEmpty)
        }
    }
}
