import CourierAsyncHTTPClient
import CourierCore
import CourierCurl
import CourierTLS
import CourierURLSession
import Foundation
import HTTPTypes
import Testing

/// Per-host certificate pinning (`TLSSettings.pinning`) against a real TLS
/// server (courier-mock serving certificates made for the test),
/// under several host names (TLSFixture.names, reached by host override):
/// host patterns, pins anywhere in the chain, rotation, the rule for hosts
/// without pins, and an error that names what the host presented.
@Suite(.serialized)
struct PinningTests {
    /// A pin no key has.
    static let stranger = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()

    @Test func aPinAnywhereInTheChainIsEnoughAndRotationKeepsTheOldOne() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            for pins in [[fixture.serverPin], [fixture.caPin], [Self.stranger, fixture.serverPin]] {
                let pinning = CertificatePinning(["*.pinned.test": pins])
                #expect(try await Self.get("api.pinned.test", port, fixture, pinning) == 200, "\(pins)")
            }
        }
    }

    @Test func aMismatchNamesTheHostTheChainAndThePins() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            let pinning = CertificatePinning(["**.pinned.test": [Self.stranger]])
            for host in ["pinned.test", "api.pinned.test", "a.b.pinned.test"] {
                let error = await #expect(throws: TransportError.self) {
                    try await Self.get(host, port, fixture, pinning)
                }
                #expect(error?.code == .tls)
                let message = error?.message ?? ""
                #expect(message.contains(host), "\(message)")
                #expect(message.contains(fixture.serverPin) && message.contains(fixture.caPin), "\(message)")
                #expect(message.contains(Self.stranger), "\(message)")
            }
        }
    }

    @Test func patternsMatchTheirHostsOnly() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            // One label: api.pinned.test is pinned (wrongly); pinned.test and
            // a.b.pinned.test match no pattern and are verified as usual.
            let pinning = CertificatePinning(["*.pinned.test": [Self.stranger]])
            await #expect(throws: TransportError.self) {
                try await Self.get("api.pinned.test", port, fixture, pinning)
            }
            #expect(try await Self.get("pinned.test", port, fixture, pinning) == 200)
            #expect(try await Self.get("a.b.pinned.test", port, fixture, pinning) == 200)
            // An exact host.
            let exact = CertificatePinning(["other.pinned.test": [Self.stranger]])
            #expect(try await Self.get("api.pinned.test", port, fixture, exact) == 200)
            await #expect(throws: TransportError.self) {
                try await Self.get("other.pinned.test", port, fixture, exact)
            }
        }
    }

    @Test func unpinnedHostsCanBeRefusedBeforeAnythingIsSent() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            let pinning = CertificatePinning(
                ["api.pinned.test": [fixture.serverPin]], unpinnedHosts: .refused)
            #expect(try await Self.get("api.pinned.test", port, fixture, pinning) == 200)
            let error = await #expect(throws: TransportError.self) {
                try await Self.get("other.pinned.test", port, fixture, pinning)
            }
            #expect(error?.code == .tls)
            #expect(error?.message.contains("other.pinned.test has no certificate pins") == true)
        }
    }

    @Test func malformedRulesAndTransportsThatCannotPinAreRefusedWhenMade() throws {
        let malformed: [KeyValuePairs<String, [String]>] = [
            ["api.*.test": [Self.stranger]], ["*.": [Self.stranger]], ["api.pinned.test": []],
            ["api.pinned.test": ["sha1//AAAA"]],
        ]
        for rules in malformed {
            #expect(throws: TransportError.self) {
                _ = try CurlTransport(
                    configuration: .init(tls: TLSSettings(pinning: CertificatePinning(rules))))
            }
        }
        let pinning = TLSSettings(pinning: CertificatePinning(["api.pinned.test": [Self.stranger]]))
        let ahc = #expect(throws: TransportError.self) {
            _ = try AsyncHTTPClientTransport(configuration: .init(tls: pinning))
        }
        #expect(ahc?.code == .unsupported)
        let urlSession = #expect(throws: TransportError.self) { _ = try URLSessionTransport(tls: pinning) }
        #expect(urlSession?.code == .unsupported)
    }

    /// `GET https://host:port/` through a CurlTransport that trusts the
    /// fixture's CA, reaches `host` at 127.0.0.1, and pins by `pinning`.
    static func get(_ host: String, _ port: Int, _ fixture: TLSFixture, _ pinning: CertificatePinning)
        async throws -> Int
    {
        let configuration = CurlTransport.Configuration(
            connectTimeoutMilliseconds: TLSTests.handshakeGuard,
            tls: TLSSettings(caBundlePath: fixture.caPath, pinning: pinning),
            hostOverrides: Dictionary(uniqueKeysWithValues: TLSFixture.names.map { ($0, "127.0.0.1") }))
        return try await withCurlTransport(configuration: configuration) { transport in
            try await transport.send(
                OutgoingRequest(
                    head: HTTPRequest(method: .get, scheme: "https", authority: "\(host):\(port)", path: "/")),
                options: .guarded
            ).statusCode
        }
    }
}
