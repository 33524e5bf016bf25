@_spi(Transport) import CourierTLS
import Foundation
import Testing

/// `CertificatePinning`'s host patterns, OkHttp's rules: `*` is one label,
/// `**` any number, none included.
struct CertificatePinningTests {
    static func pin(_ byte: UInt8) -> String {
        "sha256//" + Data(repeating: byte, count: 32).base64EncodedString()
    }

    @Test func patternsMatchTheirHostsOnly() {
        let pinning = CertificatePinning([
            "api.example.com": [Self.pin(1)], "*.example.com": [Self.pin(2)], "**.example.org": [Self.pin(3)],
        ])
        #expect(pinning.pins(for: "api.example.com") == [Self.pin(1), Self.pin(2)])
        #expect(pinning.pins(for: "API.Example.COM.") == [Self.pin(1), Self.pin(2)])
        #expect(pinning.pins(for: "www.example.com") == [Self.pin(2)])
        #expect(pinning.pins(for: "example.com") == nil)
        #expect(pinning.pins(for: "a.b.example.com") == nil)
        #expect(pinning.pins(for: "badexample.com") == nil)
        #expect(pinning.pins(for: "example.org") == [Self.pin(3)])
        #expect(pinning.pins(for: "a.b.example.org") == [Self.pin(3)])
        #expect(pinning.pins(for: "notexample.org") == nil)
    }

    @Test func aHostsPinsAreEveryMatchingRulesWithoutRepeats() {
        let pinning = CertificatePinning([
            "**.example.com": [Self.pin(1), Self.pin(2)], "api.example.com": [Self.pin(2), Self.pin(3)],
        ])
        #expect(pinning.pins(for: "api.example.com") == [Self.pin(1), Self.pin(2), Self.pin(3)])
        let settings = TLSSettings(pinnedPublicKeys: [Self.pin(9)], pinning: pinning)
        #expect(
            settings.pins(for: "api.example.com") == [Self.pin(9), Self.pin(1), Self.pin(2), Self.pin(3)])
        #expect(settings.pins(for: "elsewhere.test") == [Self.pin(9)])
    }

    @Test func unpinnedHostsAreAllowedUnlessRefused() {
        let allowing = TLSSettings(pinning: CertificatePinning(["api.example.com": [Self.pin(1)]]))
        #expect(allowing.admits(host: "other.example.com"))
        let refusing = TLSSettings(
            pinning: CertificatePinning(["api.example.com": [Self.pin(1)]], unpinnedHosts: .refused))
        #expect(refusing.admits(host: "api.example.com"))
        #expect(!refusing.admits(host: "other.example.com"))
        #expect(!refusing.pinning.isEmpty)
        #expect(CertificatePinning.none.isEmpty)
    }

    @Test(arguments: [
        ("api.*.com", "is not a host"), ("*.", "is not a host"), ("**", "is not a host"),
        ("", "is not a host"),
        ("ok.example.com", "has no pins"),
    ])
    func malformedRulesAreDescribed(pattern: String, problem: String) {
        let pins = problem == "has no pins" ? [] : [Self.pin(1)]
        let description = CertificatePinning([pattern: pins]).problem
        #expect(description?.contains(problem) == true, "\(description ?? "nil")")
    }

    @Test func pinsMustBeSHA256InBase64() {
        #expect(CertificatePinning(["a.example.com": [Self.pin(1)]]).problem == nil)
        for wrong in [
            "sha1//" + Data(repeating: 1, count: 20).base64EncodedString(), "sha256//AAAA",
            "sha256//" + String(repeating: "!", count: 43) + "=",
        ] {
            #expect(CertificatePinning(["a.example.com": [wrong]]).problem != nil, "\(wrong)")
        }
    }
}
