import Foundation
import NIOCore

#if TLS
    import CLibCrypto
    import NIOSSL
#endif

/// What the listener puts in front of HTTP on each connection for
/// ``MockTLS``: made once at start (a generated certificate included).
struct TLSServing: Sendable {
    /// The CA that signed a generated certificate, PEM; `nil` for given files.
    let certificateAuthorityPEM: String?
    #if TLS
        private let context: NIOSSLContext
    #endif

    /// Loads or makes the certificate and the server's TLS context.
    /// - Throws: ``MockServerError`` for unreadable files, a certificate
    ///   that cannot be made, or a build without the `TLS` trait.
    init(_ tls: MockTLS) throws {
        #if TLS
            let chain: [NIOSSLCertificate]
            let key: NIOSSLPrivateKey
            switch tls.source {
            case .files(let certificateChain, let privateKey):
                do {
                    chain = try NIOSSLCertificate.fromPEMFile(certificateChain)
                    key = try NIOSSLPrivateKey(file: privateKey, format: .pem)
                } catch {
                    throw MockServerError("the TLS certificate or key cannot be read: \(error)")
                }
                certificateAuthorityPEM = nil
            case .generated:
                let made: GeneratedCertificate
                do {
                    made = try GeneratedCertificate(hostNames: tls.hostNames)
                    chain = [try NIOSSLCertificate(bytes: Array(made.certificatePEM.utf8), format: .pem)]
                    key = try NIOSSLPrivateKey(bytes: Array(made.privateKeyPEM.utf8), format: .pem)
                } catch {
                    throw MockServerError("a TLS certificate could not be made: \(error)")
                }
                certificateAuthorityPEM = made.authorityPEM
                if let path = tls.caOutputPath {
                    do {
                        try made.authorityPEM.write(toFile: path, atomically: true, encoding: .utf8)
                    } catch {
                        throw MockServerError("the CA's certificate cannot be written to \(path): \(error)")
                    }
                }
            }
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            configuration.applicationProtocols = ["http/1.1"]
            do {
                context = try NIOSSLContext(configuration: configuration)
            } catch {
                throw MockServerError("the TLS configuration is refused: \(error)")
            }
        #else
            _ = tls
            throw MockServerError(
                "this courier-mock was built without TLS: build it with `swift build --traits TLS` "
                    + "(NIOSSL)")
        #endif
    }

    /// The handler that speaks TLS on an accepted connection, first in its pipeline.
    func serverHandler() -> any ChannelHandler {
        #if TLS
            NIOSSLServerHandler(context: context)
        #else
            preconditionFailure("TLSServing exists only with the TLS trait")
        #endif
    }
}

#if TLS
    /// A private CA and a server certificate it signs (P-256, valid from an
    /// hour ago for a day, random serials), made with the system's OpenSSL
    /// libcrypto — the library the mock links for its digests anyway.
    struct GeneratedCertificate {
        let authorityPEM: String
        let certificatePEM: String
        let privateKeyPEM: String

        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        init(hostNames: [String]) throws {
            // Host names go into OpenSSL's configuration syntax: letters,
            // digits, dots, hyphens and a leading wildcard only.
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*")
            for name in hostNames where name.isEmpty || !name.allSatisfy(allowed.contains) {
                throw Failure(description: "not a host name for the certificate: \(name)")
            }
            let names = (["IP:127.0.0.1", "IP:::1", "DNS:localhost"] + hostNames.map { "DNS:\($0)" })
                .joined(separator: ",")
            var authority: UnsafeMutablePointer<CChar>?
            var certificate: UnsafeMutablePointer<CChar>?
            var key: UnsafeMutablePointer<CChar>?
            guard courier_mock_make_tls(names, &authority, &certificate, &key) == 1,
                let authority, let certificate, let key
            else {
                throw Failure(description: "OpenSSL could not make the certificate")
            }
            defer {
                free(authority)
                free(certificate)
                free(key)
            }
            authorityPEM = String(cString: authority)
            certificatePEM = String(cString: certificate)
            privateKeyPEM = String(cString: key)
        }
    }
#endif
