import Foundation

/// TLS for the mock's listener: it then serves `https://` (HTTP/1.1 over
/// TLS, offered by ALPN), on SwiftNIO's NIOSSL. Needs the `TLS` trait
/// (`swift build --traits TLS`): without it, a server given a `MockTLS`
/// fails to start and says how to build it.
///
/// The certificate is given (PEM files) or made when the server starts: a
/// private CA of its own, and a certificate it signs for `127.0.0.1`, `::1`,
/// `localhost` and ``hostNames``, valid for a day. The CA's certificate is
/// what a client trusts (``MockServer/certificateAuthorityPEM``, and
/// ``caOutputPath`` when set): nothing is added to the system's trust store.
public struct MockTLS: Sendable, Hashable {
    /// Where the server's certificate and key come from.
    public enum Source: Sendable, Hashable {
        /// PEM files: the server's certificate (then any intermediates) and its private key.
        case files(certificateChain: String, privateKey: String)
        /// Made at start, signed by a CA made with it.
        case generated
    }

    /// Where the server's certificate and key come from.
    public var source: Source
    /// Names a generated certificate holds besides `127.0.0.1`, `::1` and
    /// `localhost` (a client that reaches the server through a host
    /// override checks the name it asked for).
    public var hostNames: [String]
    /// Where a generated CA's certificate is written (PEM), for clients to trust.
    public var caOutputPath: String?

    /// TLS with the certificate chain and key in these PEM files.
    public static func files(certificateChain: String, privateKey: String) -> MockTLS {
        MockTLS(source: .files(certificateChain: certificateChain, privateKey: privateKey), hostNames: [])
    }

    /// TLS with a certificate made at start for `hostNames` too, its CA
    /// written to `caOutputPath` when given.
    public static func generated(hostNames: [String] = [], caOutputPath: String? = nil) -> MockTLS {
        MockTLS(source: .generated, hostNames: hostNames, caOutputPath: caOutputPath)
    }
}
