@_spi(Transport) import CourierCore
@_spi(Transport) import CourierProxies
import CourierTLS
import Testing

/// Routes, curl's environment rules, and what a transport is checked for.
struct ProxyConfigurationTests {
    let corporate = Proxy(.http, host: "proxy.corp", port: 3128)

    @Test func aFixedProxyRoutesEverythingButItsExceptions() throws {
        let configuration = ProxyConfiguration.through(
            corporate, except: try NoProxyList("localhost,.internal"))
        #expect(
            configuration.proxy(for: ProxyTarget(scheme: "https", host: "api.example", port: 443))
                == corporate)
        #expect(configuration.proxy(for: ProxyTarget(scheme: "http", host: "localhost", port: 8080)) == nil)
        #expect(configuration.proxy(for: ProxyTarget(scheme: "http", host: "db.internal", port: 80)) == nil)
        #expect(ProxyConfiguration.direct.proxy(for: ProxyTarget(scheme: "http", host: "a", port: 80)) == nil)
    }

    @Test func targetsReadFromAuthorities() {
        #expect(
            ProxyTarget(scheme: "HTTPS", authority: "api.example")
                == ProxyTarget(scheme: "https", host: "api.example", port: 443))
        #expect(
            ProxyTarget(scheme: "http", authority: "u:p@h:8080")
                == ProxyTarget(scheme: "http", host: "h", port: 8080))
        #expect(
            ProxyTarget(scheme: "http", authority: "[::1]:81")
                == ProxyTarget(scheme: "http", host: "::1", port: 81))
        #expect(
            ProxyTarget(scheme: "http", authority: "[::1]")
                == ProxyTarget(scheme: "http", host: "::1", port: 80))
        #expect(ProxyTarget(scheme: "http", authority: "") == nil)
    }

    @Test func theEnvironmentFollowsCurlsRulesAndIgnoresUppercaseHTTPProxy() throws {
        // httpoxy: a CGI server turns a request's `Proxy:` header into HTTP_PROXY.
        let cgi = try ProxyConfiguration.environment(["HTTP_PROXY": "http://attacker:1"])
        #expect(cgi.isDirect)
        let lower = try ProxyConfiguration.environment([
            "http_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2",
        ])
        #expect(lower.proxy(for: ProxyTarget(scheme: "http", host: "x", port: 80))?.host == "a")
        #expect(lower.proxy(for: ProxyTarget(scheme: "https", host: "x", port: 443))?.host == "b")
        // Lowercase wins over uppercase; ALL_PROXY fills what is unset.
        let both = try ProxyConfiguration.environment([
            "https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2", "ALL_PROXY": "socks5h://all:3",
        ])
        #expect(both.proxy(for: ProxyTarget(scheme: "https", host: "x", port: 443))?.host == "lower")
        #expect(
            both.proxy(for: ProxyTarget(scheme: "http", host: "x", port: 80))
                == Proxy(.socks5, host: "all", port: 3))
        // NO_PROXY; an empty variable counts as unset.
        let except = try ProxyConfiguration.environment([
            "all_proxy": "http://p:1", "https_proxy": "", "NO_PROXY": "localhost",
        ])
        #expect(except.proxy(for: ProxyTarget(scheme: "https", host: "x", port: 443))?.host == "p")
        #expect(except.proxy(for: ProxyTarget(scheme: "https", host: "localhost", port: 443)) == nil)
        #expect(try ProxyConfiguration.environment([:]).isDirect)
    }

    @Test func anUnusableEnvironmentIsAnErrorNotADirectConnection() {
        #expect(throws: InvalidProxyError.self) {
            try ProxyConfiguration.environment(["https_proxy": "socks4://p:1"])
        }
        #expect(throws: InvalidProxyError.self) {
            try ProxyConfiguration.environment(["https_proxy": "http://p:1", "no_proxy": "10.0.0.0/99"])
        }
    }

    @Test func aTransportIsCheckedForWhatItCannotDo() throws {
        let support = ProxySupport(
            transport: "Limited", kinds: [.http, .socks5], schemes: [.http: [.basic]], customProxyTLS: false,
            choosesPerRequest: false)
        try support.check(.through(corporate))
        #expect(throws: TransportError.self) { try support.check(.through(Proxy(.https, host: "p"))) }
        let digest = Proxy(.http, host: "p", credentials: .init(user: "u", password: "pw", scheme: .digest))
        #expect(throws: TransportError.self) { try support.check(.through(digest)) }
        let socksUser = Proxy(.socks5, host: "p", credentials: .init(user: "u", password: "pw"))
        #expect(throws: TransportError.self) { try support.check(.through(socksUser)) }
        #expect(throws: TransportError.self) { try support.check(.choosing { _ in nil }) }
        do {
            try support.check(.through(digest))
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("digest") && !error.message.contains("pw"))
        }
    }

    @Test func aProxyChosenPerRequestIsCheckedWhenTheRequestIsSent() throws {
        let support = ProxySupport(
            transport: "Chooser", kinds: [.http], schemes: [:], customProxyTLS: false, choosesPerRequest: true
        )
        let configuration = ProxyConfiguration.choosing { target in
            target.host == "socks.example"
                ? Proxy(.socks5, host: "s") : target.host == "direct.example" ? nil : Proxy(.http, host: "h")
        }
        try support.check(configuration)
        #expect(try support.proxy(for: configuration, scheme: "https", authority: "api.example")?.host == "h")
        #expect(try support.proxy(for: configuration, scheme: "https", authority: "direct.example") == nil)
        #expect(throws: TransportError.self) {
            try support.proxy(for: configuration, scheme: "https", authority: "socks.example")
        }
    }
}
