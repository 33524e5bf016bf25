import CourierMockServer
import Foundation
import Testing

/// `MockServer.Configuration.tls`: a certificate made at start (its CA
/// handed out, written where asked), and the typed refusals for what cannot
/// be served. The https exchanges themselves are the contract suite's
/// (HTTPSContracts, TLSTests, PinningTests), over every transport.
struct TLSServingTests {
    @Test func aGeneratedCertificateComesWithItsAuthority() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("mock-ca-\(UUID()).pem")
        defer { try? FileManager.default.removeItem(at: output) }
        var configuration = MockServer.Configuration()
        configuration.tls = .generated(hostNames: ["api.example.test"], caOutputPath: output.path)
        try await withMockServer(configuration) { server in
            #expect(server.baseURL.hasPrefix("https://127.0.0.1:"))
            let authority = try #require(server.certificateAuthorityPEM)
            #expect(authority.hasPrefix("-----BEGIN CERTIFICATE-----"))
            #expect(try String(contentsOf: output, encoding: .utf8) == authority)
        }
    }

    @Test func whatCannotBeServedIsRefusedAtStart() async throws {
        var unreadable = MockServer.Configuration()
        unreadable.tls = .files(certificateChain: "/nonexistent/cert.pem", privateKey: "/nonexistent/key.pem")
        await #expect(throws: MockServerError.self) { _ = try await MockServer.start(unreadable) }
        var injected = MockServer.Configuration()
        injected.tls = .generated(hostNames: ["a.test,IP:10.0.0.1"])
        await #expect(throws: MockServerError.self) { _ = try await MockServer.start(injected) }
    }
}
