import CourierAsyncHTTPClient
import CourierCore
import CourierCurl
import CourierTLS
import CourierURLSession
import Foundation
import HTTPTypes
import Testing

/// TLS against a real TLS server with certificates made for the test
/// (courier-mock serving them; `openssl s_server` where the server must ask
/// for a client certificate): verification on by default, a private CA, key pinning and
/// mutual TLS over CourierCurl; a private CA and mutual TLS over
/// CourierAsyncHTTPClient (NIOSSL), which refuses pins with a typed error;
/// URLSession refuses all of these settings with a typed error.
@Suite(.serialized)
struct TLSTests {
    @Test func verificationIsOnByDefault() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            try await Self.expectFailure(.tls, port: port, tls: .system)
        }
    }

    @Test func aPrivateCAIsTrustedWhenConfigured() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            let status = try await Self.get(port: port, tls: TLSSettings(caBundlePath: fixture.caPath))
            #expect(status == 200)
        }
    }

    /// Over https, libcurl measures the handshake, between connecting and
    /// the first byte (the phases of EventMonitorTests, with the TLS one).
    @Test func theTLSPhaseIsMeasuredInItsPlace() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            let response = try await withCurlTransport(
                configuration: .init(
                    connectTimeoutMilliseconds: Self.handshakeGuard,
                    tls: TLSSettings(caBundlePath: fixture.caPath))
            ) { transport in
                try await transport.send(
                    OutgoingRequest(
                        head: HTTPRequest(
                            method: .get, scheme: "https", authority: "127.0.0.1:\(port)", path: "/")),
                    options: .guarded)
            }
            #expect(response.statusCode == 200)
            EventMonitorTests.expectPhasesInOrder(response.metrics, .curl, tls: true)
            #expect(response.metrics.tlsHandshake.map { $0 > .zero } == true, "\(response.metrics)")
        }
    }

    @Test func pinnedKeysMustMatch() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            let right = TLSSettings(caBundlePath: fixture.caPath, pinnedPublicKeys: [fixture.serverPin])
            #expect(try await Self.get(port: port, tls: right) == 200)
            let wrong = TLSSettings(
                caBundlePath: fixture.caPath,
                pinnedPublicKeys: ["sha256//" + Data(repeating: 7, count: 32).base64EncodedString()])
            try await Self.expectFailure(.tls, port: port, tls: wrong)
        }
    }

    @Test func aClientCertificateIsPresentedWhenTheServerAsks() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer(requireClientCertificate: true) { port async throws in
            let client = TLSSettings.ClientCertificate(
                certificatePath: fixture.clientCertificatePath, keyPath: fixture.clientKeyPath)
            let status = try await Self.get(
                port: port, tls: TLSSettings(caBundlePath: fixture.caPath, clientCertificate: client))
            #expect(status == 200)
        }
        try await fixture.withServer(requireClientCertificate: true) { port async throws in
            // Without one, the handshake (or the first read after it) fails.
            try await Self.expectFailure(
                [.tls, .connectionReset, .emptyResponse], port: port,
                tls: TLSSettings(caBundlePath: fixture.caPath))
        }
    }

    /// An untrusted certificate over URLSession is a `.tls` failure, classified
    /// by libcurl's code under FoundationNetworking's error, not `.other`.
    @Test func urlSessionNamesAnUntrustedCertificateAsTLS() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            let transport = URLSessionTransport()
            defer { transport.shutdown() }
            do {
                let response = try await transport.send(
                    OutgoingRequest(
                        head: HTTPRequest(
                            method: .get, scheme: "https", authority: "127.0.0.1:\(port)", path: "/")),
                    options: .guarded)
                Issue.record("an untrusted certificate was accepted: status \(response.statusCode)")
            } catch let error as TransportError {
                #expect(error.code == .tls, "\(error)")
            }
        }
    }

    @Test func urlSessionRefusesCustomTLSWithATypedError() throws {
        let error = #expect(throws: TransportError.self) {
            try URLSessionTransport(tls: TLSSettings(caBundlePath: "/ca.pem"))
        }
        #expect(error?.code == .unsupported)
        let transport = try URLSessionTransport(tls: .system)
        transport.shutdown()
    }

    @Test func asyncHTTPClientVerifiesTrustsAPrivateCAAndPresentsACertificate() async throws {
        let fixture = try await TLSFixture.make()
        defer { fixture.remove() }
        try await fixture.withServer { port async throws in
            do {
                let status = try await Self.getOverAsyncHTTPClient(port: port, tls: .system)
                Issue.record("an untrusted certificate was accepted: status \(status)")
            } catch let error as TransportError {
                #expect(error.code == .tls, "\(error)")
            }
            #expect(
                try await Self.getOverAsyncHTTPClient(
                    port: port, tls: TLSSettings(caBundlePath: fixture.caPath)) == 200)
        }
        try await fixture.withServer(requireClientCertificate: true) { port async throws in
            let client = TLSSettings.ClientCertificate(
                certificatePath: fixture.clientCertificatePath, keyPath: fixture.clientKeyPath)
            let status = try await Self.getOverAsyncHTTPClient(
                port: port, tls: TLSSettings(caBundlePath: fixture.caPath, clientCertificate: client))
            #expect(status == 200)
        }
    }

    @Test func asyncHTTPClientRefusesPinsAndUnreadableFilesWithTypedErrors() throws {
        let pinned = #expect(throws: TransportError.self) {
            try AsyncHTTPClientTransport(
                configuration: .init(tls: TLSSettings(pinnedPublicKeys: ["sha256//AAAA"])))
        }
        #expect(pinned?.code == .unsupported)
        let missing = #expect(throws: TransportError.self) {
            try AsyncHTTPClientTransport(
                configuration: .init(tls: TLSSettings(caBundlePath: "/nonexistent/ca.pem")))
        }
        #expect(missing?.code == .tls)
    }

    // MARK: - Helpers

    /// A connect timeout (the TLS handshake included) only a hang reaches:
    /// under ThreadSanitizer the in-process server's handshake has taken
    /// over 10 s on a loaded machine.
    static let handshakeGuard = 600_000

    static func get(port: Int, tls: TLSSettings) async throws -> Int {
        try await withCurlTransport(
            configuration: .init(connectTimeoutMilliseconds: handshakeGuard, tls: tls)
        ) {
            transport in
            try await transport.send(
                OutgoingRequest(
                    head: HTTPRequest(
                        method: .get, scheme: "https", authority: "127.0.0.1:\(port)", path: "/")),
                options: .guarded
            ).statusCode
        }
    }

    static func getOverAsyncHTTPClient(port: Int, tls: TLSSettings) async throws -> Int {
        // A connect timeout (TLS handshake included) no loaded machine misses.
        try await withAsyncHTTPClientTransport(configuration: .init(tls: tls, connectTimeout: .seconds(600)))
        {
            transport in
            try await transport.send(
                OutgoingRequest(
                    head: HTTPRequest(
                        method: .get, scheme: "https", authority: "127.0.0.1:\(port)", path: "/")),
                options: .guarded
            ).statusCode
        }
    }

    static func expectFailure(_ codes: Set<TransportError.Code>, port: Int, tls: TLSSettings) async throws {
        do {
            let status = try await get(port: port, tls: tls)
            Issue.record("expected a TLS failure, got status \(status)")
        } catch let error as TransportError {
            #expect(codes.contains(error.code), "\(error)")
        }
    }

    static func expectFailure(_ code: TransportError.Code, port: Int, tls: TLSSettings) async throws {
        try await expectFailure([code], port: port, tls: tls)
    }
}
