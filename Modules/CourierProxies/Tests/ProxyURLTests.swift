import CourierProxies
import Testing

/// Proxy URLs as curl and the environment write them.
struct ProxyURLTests {
    @Test func schemesPortsAndDefaults() throws {
        #expect(try Proxy(url: "http://proxy.corp:3128") == Proxy(.http, host: "proxy.corp", port: 3128))
        #expect(try Proxy(url: "proxy.corp:3128") == Proxy(.http, host: "proxy.corp", port: 3128))
        #expect(try Proxy(url: "proxy.corp") == Proxy(.http, host: "proxy.corp", port: 1080))
        #expect(try Proxy(url: "HTTPS://proxy.corp/") == Proxy(.https, host: "proxy.corp", port: 443))
        #expect(try Proxy(url: "socks5://127.0.0.1:1080").kind == .socks5)
        #expect(try Proxy(url: "socks5h://127.0.0.1:1080").kind == .socks5)
        #expect(try Proxy(url: "http://[::1]:8080") == Proxy(.http, host: "::1", port: 8080))
        #expect(try Proxy(url: "  http://p:1  ") == Proxy(.http, host: "p", port: 1))
    }

    @Test func userInformationBecomesBasicCredentialsAndIsNeverPrinted() throws {
        let proxy = try Proxy(url: "http://al%40ice:p%3Ass@proxy.corp:3128")
        #expect(proxy.credentials == Proxy.Credentials(user: "al@ice", password: "p:ss", scheme: .basic))
        #expect(proxy.description == "http://al@ice:***@proxy.corp:3128")
        #expect(!"\(proxy)".contains("p:ss"))
        #expect(!"\(ProxyConfiguration.through(proxy))".contains("p:ss"))
    }

    @Test(arguments: [
        "socks4://p:1080", "ftp://p", "http://", "http://p:0", "http://p:70000", "http://p:x",
        "http://p/path", "http://p?q", "http://[::1", "http://p:1/x",
    ])
    func unusableURLsAreTypedErrors(url: String) {
        #expect(throws: InvalidProxyError.self) { try Proxy(url: url) }
    }

    @Test func anErrorMasksThePassword() {
        do {
            _ = try Proxy(url: "socks4://user:hunter2@p:1080")
            Issue.record("socks4 was accepted")
        } catch {
            #expect(!error.description.contains("hunter2"))
            #expect(error.description.contains("socks4"))
        }
    }
}
