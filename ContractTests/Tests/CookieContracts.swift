import CourierCache
import CourierCodable
import CourierCookies
import CourierCore
import Foundation
import HTTPTypes
import Testing

/// `cookies.json`: a session cookie set by a login's redirect carries the
/// session over every transport, a logout ends it, a client without a jar
/// keeps nothing, and a shared cache keeps two jars' users apart.
struct CookieContracts {
    static func client(_ kind: ContractTransport, jar: CookieJar?, cache: ResponseCache? = nil) -> APIClient {
        var configuration = APIClient.Configuration(
            transport: kind.transport, decoder: .codable, timeout: contractSafetyNet)
        configuration.cookies = jar
        if let cache { configuration.cache = cache }
        return APIClient(configuration: configuration)
    }

    @Test(arguments: ContractTransport.allCases)
    func aSessionCookieCarriesTheLoginThroughItsRedirect(kind: ContractTransport) async throws {
        try await contract("cookies: a login's redirect carries its cookie; logout ends the session", kind) {
            try await ContractServer.with("cookies.json") { server in
                let jar = CookieJar()
                let client = Self.client(kind, jar: jar)
                let login = Endpoint<User>(.post("cookies/login"), on: server.node())
                let me = Endpoint<User>(.get("cookies/me"), on: server.node())
                check(try await client.send(login).name == "Ada", "the redirect's target saw the cookie")
                check(try await client.send(me).name == "Ada", "later calls carry it")
                let stored = jar.cookies.map {
                    "\($0.name)=\($0.value) httpOnly=\($0.httpOnly) \($0.sameSite?.rawValue ?? "")"
                }
                check(stored == ["sid=s3cr3t httpOnly=true Lax"], "the jar holds \(stored)")
                _ = try await client.send(Endpoint<User>(.post("cookies/logout"), on: server.node()))
                check(jar.cookies.isEmpty, "logout expired it: \(jar.cookies)")
                do {
                    _ = try await client.send(me)
                    check(false, "a call after logout succeeded")
                } catch let error as CourierError {
                    check(error.response?.statusCode == 401, "after logout: \(error)")
                }
                let journal = try await server.exchanges()
                journal.expectOrder([
                    "cookies-login", "cookies-me", "cookies-me", "cookies-logout", "cookies-me-anonymous",
                ])
                journal.expectHeader("Cookie", .absent, on: "cookies-login")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func withoutAJarNothingIsKeptOrSent(kind: ContractTransport) async throws {
        try await contract("cookies: a client without a jar sends no cookie", kind) {
            try await ContractServer.with("cookies.json") { server in
                let client = Self.client(kind, jar: nil)
                do {
                    _ = try await client.send(Endpoint<User>(.post("cookies/login"), on: server.node()))
                    check(false, "the redirect's target accepted a call without the cookie")
                } catch let error as CourierError {
                    check(error.response?.statusCode == 401, "\(error)")
                }
                try await server.exchanges().expectOrder(["cookies-login", "cookies-me-anonymous"])
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aSharedCacheKeepsTwoJarsUsersApart(kind: ContractTransport) async throws {
        try await contract("cookies: one cache, two jars — each user gets their own response", kind) {
            try await ContractServer.with("cookies.json") { server in
                let cache = ResponseCache()
                let (ada, grace) = (
                    Self.client(kind, jar: CookieJar(), cache: cache),
                    Self.client(kind, jar: CookieJar(), cache: cache)
                )
                _ = try await ada.send(Endpoint<User>(.post("cookies/login"), on: server.node()))
                _ = try await grace.send(Endpoint<User>(.post("cookies/login-grace"), on: server.node()))
                let me = Endpoint<User>(.get("cookies/me"), on: server.node())
                    .cache(.cancelNetwork) { $0.storesCredentialedResponses = true }
                check(try await ada.send(me).name == "Ada", "Ada")
                check(try await grace.send(me).name == "Grace", "Grace gets hers, not Ada's stored one")
                let again = try await ada.response(me)
                check(again.model.name == "Ada" && again.attempts == 0, "Ada's entry serves Ada")
                let journal = try await server.exchanges()
                journal.expectCount("cookies-me", .exactly(2))  // the login's redirect, then the first read
                journal.expectCount("cookies-me-grace", .exactly(2))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func theCookieFieldIsOneLineJoinedWithSemicolons(kind: ContractTransport) async throws {
        try await contract("cookies: one Cookie field, the jar's and the endpoint's joined with \"; \"", kind)
        {
            try await ContractServer.with("cookies.json") { server in
                let client = Self.client(kind, jar: CookieJar())
                _ = try await client.send(Endpoint<User>(.get("cookies/prefs"), on: server.node()))
                let echo = Endpoint<User>(.get("cookies/echo"), on: server.node())
                    .adding(headers: [.cookie: "own=1; also=2"])
                _ = try await client.send(echo)
                // The server's record of the wire: RFC 6265 §5.4 allows one
                // Cookie field; several lines, or crumbs joined with commas,
                // are read as one cookie by real servers.
                let sent = try await server.exchanges().attempts("cookies-echo")
                let lines = sent.first?.headers.filter { $0.name.lowercased() == "cookie" }.map(\.value) ?? []
                check(lines.count == 1, "one Cookie line, saw \(lines)")
                let crumbs = Set((lines.first ?? "").components(separatedBy: "; "))
                check(crumbs == ["own=1", "also=2", "theme=dark", "lang=en"], "the crumbs: \(lines)")
                check(!(lines.first ?? "").contains(","), "no commas: \(lines)")
            }
        }
    }
}
