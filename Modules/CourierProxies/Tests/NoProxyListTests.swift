import CourierProxies
import Testing

/// curl's NO_PROXY semantics, and ports.
struct NoProxyListTests {
    @Test func namesMatchThemselvesAndEveryHostUnderThem() throws {
        let list = try NoProxyList("example.com, .corp.example")
        #expect(list.contains(host: "example.com", port: 443))
        #expect(list.contains(host: "api.example.com", port: 443))
        #expect(list.contains(host: "API.Example.COM.", port: 80))
        #expect(!list.contains(host: "badexample.com", port: 443))
        #expect(!list.contains(host: "example.com.evil", port: 443))
        #expect(list.contains(host: "corp.example", port: 80))
        #expect(list.contains(host: "git.corp.example", port: 80))
        #expect(!list.contains(host: "corp.example.org", port: 80))
    }

    @Test func aStarAloneMatchesEverything() throws {
        #expect(try NoProxyList("*").contains(host: "anything.example", port: 1))
        #expect(!NoProxyList.none.contains(host: "anything.example", port: 1))
        #expect(try !NoProxyList("").contains(host: "anything.example", port: 1))
    }

    @Test func addressesAndRangesMatchLiteralAddressesOnly() throws {
        let list = try NoProxyList("127.0.0.1 10.0.0.0/8,::1, [fd00::]/8 , 192.168.1.0/24")
        #expect(list.contains(host: "127.0.0.1", port: 80))
        #expect(!list.contains(host: "127.0.0.2", port: 80))
        #expect(list.contains(host: "10.200.3.4", port: 80))
        #expect(!list.contains(host: "11.0.0.1", port: 80))
        #expect(list.contains(host: "::1", port: 80))
        #expect(list.contains(host: "[::1]", port: 80))
        #expect(list.contains(host: "fd12:3456::1", port: 80))
        #expect(!list.contains(host: "fe80::1", port: 80))
        #expect(list.contains(host: "192.168.1.77", port: 80))
        #expect(!list.contains(host: "192.168.2.1", port: 80))
        // A name is never resolved to compare with an address.
        #expect(!list.contains(host: "localhost", port: 80))
        // An address entry is not a name suffix.
        #expect(!list.contains(host: "x.127.0.0.1", port: 80))
    }

    @Test func aPortNarrowsAnEntryToThatPort() throws {
        let list = try NoProxyList("registry.local:5000, [::1]:8080, 10.1.2.3:22")
        #expect(list.contains(host: "registry.local", port: 5000))
        #expect(!list.contains(host: "registry.local", port: 443))
        #expect(list.contains(host: "::1", port: 8080))
        #expect(!list.contains(host: "::1", port: 80))
        #expect(list.contains(host: "10.1.2.3", port: 22))
        #expect(!list.contains(host: "10.1.2.3", port: 23))
    }

    @Test(arguments: ["10.0.0.0/33", "::1/129", "host:0", "host:99999", "a@b", "[::1]x", "10.0.0.0/x"])
    func malformedEntriesAreTypedErrors(list: String) {
        #expect(throws: InvalidProxyError.self) { try NoProxyList(list) }
    }
}
