import CourierCookies
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// RFC 6265 §5.3 storage and §5.4 retrieval, with the public suffix rule.
struct CookieJarTests {
    let clock = TestClock(mode: .manual)

    func jar(_ limits: CookieJar.Limits = .standard) -> CookieJar {
        CookieJar(limits: limits) { [clock] in clock.date }
    }

    func names(_ jar: CookieJar, _ url: String) throws -> [String] {
        jar.cookies(for: try #require(URL(string: url))).map(\.name)
    }

    func set(_ jar: CookieJar, _ field: String, from url: String) throws -> CookieUpdate {
        jar.setCookie(field, from: try #require(URL(string: url)))
    }

    @Test func hostOnlyAndDomainCookies() throws {
        let jar = jar()
        _ = try set(jar, "host=1", from: "https://www.shop.example/")
        _ = try set(jar, "wide=1; Domain=shop.example", from: "https://www.shop.example/")
        #expect(try names(jar, "https://www.shop.example/") == ["host", "wide"])
        #expect(try names(jar, "https://api.shop.example/") == ["wide"])
        #expect(try names(jar, "https://shop.example/") == ["wide"])
        #expect(try names(jar, "https://othershop.example/").isEmpty)
        #expect(try names(jar, "https://shop.example.evil/").isEmpty)
        let stored = try #require(jar.cookies.first { $0.name == "host" })
        #expect(stored.hostOnly && stored.domain == "www.shop.example")
    }

    @Test(arguments: ["com", "co.uk", "github.io", ".com"])
    func aPublicSuffixDomainIsRefused(domain: String) throws {
        let jar = jar()
        let host = "https://a." + (domain.hasPrefix(".") ? String(domain.dropFirst()) : domain) + "/"
        #expect(try set(jar, "evil=1; Domain=\(domain)", from: host) == .rejected(.publicSuffix))
        #expect(jar.cookies.isEmpty)
    }

    @Test func aHostThatIsAPublicSuffixKeepsAHostOnlyCookie() throws {
        let jar = jar()
        guard case .stored(let cookie) = try set(jar, "a=1; Domain=github.io", from: "https://github.io/")
        else {
            Issue.record("not stored")
            return
        }
        #expect(cookie.hostOnly)
        #expect(try names(jar, "https://user.github.io/").isEmpty)
    }

    @Test func domainsTheHostIsNotUnderAreRefused() throws {
        let jar = jar()
        #expect(
            try set(jar, "a=1; Domain=other.example", from: "https://www.shop.example/")
                == .rejected(.domainMismatch))
        #expect(
            try set(jar, "a=1; Domain=www.shop.example", from: "https://shop.example/")
                == .rejected(.domainMismatch))
        // An IP address is never "under" a domain, and only matches itself.
        #expect(try set(jar, "a=1; Domain=0.0.1", from: "http://127.0.0.1/") == .rejected(.domainMismatch))
        _ = try set(jar, "ip=1", from: "http://127.0.0.1:8080/")
        #expect(try names(jar, "http://127.0.0.1:9090/x") == ["ip"])  // cookies ignore ports (RFC 6265 §8.5)
        #expect(try names(jar, "http://127.0.0.2/").isEmpty)
        _ = try set(jar, "v6=1", from: "http://[::1]:8080/")
        #expect(try names(jar, "http://[::1]/") == ["v6"])
    }

    @Test func pathsDefaultAndMatch() throws {
        let jar = jar()
        _ = try set(jar, "deflt=1", from: "https://s.example/docs/page?x=/y")
        _ = try set(jar, "root=1; Path=/", from: "https://s.example/docs/page")
        _ = try set(jar, "api=1; Path=/api", from: "https://s.example/")
        #expect(jar.cookies.first { $0.name == "deflt" }?.path == "/docs")
        #expect(try names(jar, "https://s.example/docs") == ["deflt", "root"])
        #expect(try names(jar, "https://s.example/docs/deeper/x") == ["deflt", "root"])
        #expect(try names(jar, "https://s.example/docsx") == ["root"])
        #expect(try names(jar, "https://s.example/api/v1") == ["api", "root"])
        #expect(try names(jar, "https://s.example/apix") == ["root"])
    }

    @Test func longerPathsFirstThenOlder() throws {
        let jar = jar()
        _ = try set(jar, "b=1; Path=/", from: "https://s.example/")
        clock.advance(by: .seconds(1))
        _ = try set(jar, "a=1; Path=/", from: "https://s.example/")
        _ = try set(jar, "deep=1; Path=/a/b", from: "https://s.example/")
        #expect(try names(jar, "https://s.example/a/b/c") == ["deep", "b", "a"])
        let field = jar.cookieField(
            for: .init(method: .get, scheme: "https", authority: "s.example", path: "/a/b"))
        #expect(field == "deep=1; b=1; a=1")
    }

    @Test func secureCookiesNeedHTTPS() throws {
        let jar = jar()
        #expect(try set(jar, "s=1; Secure", from: "http://s.example/") == .rejected(.insecureOrigin))
        _ = try set(jar, "s=1; Secure", from: "https://s.example/")
        #expect(try names(jar, "https://s.example/") == ["s"])
        #expect(try names(jar, "http://s.example/").isEmpty)
        // Plain http may not set a cookie that would sit beside (shadow) the secure one.
        #expect(try set(jar, "s=evil", from: "http://s.example/") == .rejected(.wouldShadowSecure))
        #expect(
            try set(jar, "s=evil; Domain=s.example", from: "http://www.s.example/")
                == .rejected(.wouldShadowSecure))
        #expect(jar.cookies.map(\.value) == ["1"])
    }

    @Test func prefixes() throws {
        let jar = jar()
        #expect(try set(jar, "__Secure-a=1", from: "https://s.example/") == .rejected(.prefix))
        #expect(
            try set(jar, "__Host-a=1; Secure; Path=/; Domain=s.example", from: "https://s.example/")
                == .rejected(.prefix))
        #expect(try set(jar, "__Host-a=1; Secure", from: "https://s.example/x/y") == .rejected(.prefix))
        #expect(try set(jar, "__host-a=1; Secure; Path=/", from: "https://s.example/") != .rejected(.prefix))
        #expect(try set(jar, "__Secure-b=1; Secure", from: "https://s.example/") != .rejected(.prefix))
        #expect(jar.cookies.count == 2)
    }

    @Test func expiryMaxAgeWinsAndReplacementKeepsCreation() throws {
        let jar = jar()
        _ = try set(jar, "a=1; Max-Age=60; Expires=Thu, 01 Jan 1970 00:00:00 GMT", from: "https://s.example/")
        let created = try #require(jar.cookies.first).created
        clock.advance(by: .seconds(30))
        _ = try set(jar, "a=2; Max-Age=60", from: "https://s.example/")
        let replaced = try #require(jar.cookies.first)
        #expect(replaced.value == "2" && replaced.created == created)
        clock.advance(by: .seconds(59))
        #expect(try names(jar, "https://s.example/") == ["a"])
        clock.advance(by: .seconds(1))
        #expect(try names(jar, "https://s.example/").isEmpty)
        #expect(jar.cookies.isEmpty)
    }

    @Test func anExpiredCookieDeletes() throws {
        let jar = jar()
        _ = try set(jar, "a=1; Max-Age=600", from: "https://s.example/")
        _ = try set(jar, "b=1", from: "https://s.example/")
        #expect(try set(jar, "a=; Max-Age=0", from: "https://s.example/") == .deleted)
        #expect(
            try set(jar, "b=; Expires=Thu, 01 Jan 1970 00:00:00 GMT", from: "https://s.example/") == .deleted)
        #expect(jar.cookies.isEmpty)
    }

    @Test func lifetimesAreCapped() throws {
        let jar = jar()
        _ = try set(jar, "a=1; Max-Age=999999999", from: "https://s.example/")
        _ = try set(jar, "b=1; Expires=Fri, 31 Dec 9999 23:59:59 GMT", from: "https://s.example/")
        let cap = clock.date.addingTimeInterval(400 * 86_400)
        #expect(jar.cookies.allSatisfy { $0.expires == cap })
    }

    @Test func perDomainAndTotalLimitsEvictTheLeastRecentlyUsed() throws {
        let jar = jar(CookieJar.Limits(perDomain: 3, total: 5))
        for index in 0..<3 {
            _ = try set(jar, "c\(index)=1; Path=/\(index)", from: "https://a.example/")
            clock.advance(by: .seconds(1))
        }
        #expect(try names(jar, "https://a.example/0") == ["c0"])  // c0 used: c1 is now the least recent
        clock.advance(by: .seconds(1))
        _ = try set(jar, "c3=1; Path=/3", from: "https://a.example/")
        #expect(Set(jar.cookies.map(\.name)) == ["c0", "c2", "c3"])
        for index in 0..<3 {
            clock.advance(by: .seconds(1))
            _ = try set(jar, "d\(index)=1", from: "https://b.example/")
        }
        // Five in all: the least recently used of all (c2) went.
        #expect(Set(jar.cookies.map(\.name)) == ["c0", "c3", "d0", "d1", "d2"])
    }

    @Test func inspectRemoveAndClear() throws {
        let jar = jar()
        _ = try set(jar, "keep=1; Max-Age=60", from: "https://s.example/")
        _ = try set(jar, "session=1", from: "https://s.example/")
        _ = try set(jar, "other=1", from: "https://o.example/")
        #expect(jar.remove { $0.domain == "o.example" } == 1)
        jar.removeSessionCookies()
        #expect(jar.cookies.map(\.name) == ["keep"])
        jar.removeAll()
        #expect(jar.cookies.isEmpty)
    }

    @Test func storageReceivesEveryFieldOfAResponse() throws {
        let jar = jar()
        let request = HTTPRequestFixture.get("https://s.example/login")
        jar.receive(
            .init(
                status: .ok,
                headerFields: HTTPFields([
                    HTTPField(name: .setCookie, value: "a=1; Path=/"),
                    HTTPField(name: .setCookie, value: "b=2; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/"),
                    HTTPField(name: .setCookie, value: "bad"),
                ])), for: request)
        #expect(jar.cookieField(for: HTTPRequestFixture.get("https://s.example/")) == "a=1; b=2")
        #expect(jar.cookieField(for: HTTPRequestFixture.get("https://elsewhere.example/")) == nil)
    }
}
