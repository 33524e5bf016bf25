/// How a transport verifies servers and proves its own identity over TLS.
///
/// Verification is always on: these settings narrow whom to trust (a private
/// CA, pinned keys) or add a client certificate; none of them turns checks off.
public struct TLSSettings: Sendable, Hashable {
    /// A certificate and its private key, both PEM files, for mutual TLS.
    public struct ClientCertificate: Sendable, Hashable {
        /// The certificate (chain) file.
        public var certificatePath: String
        /// The private key file, unencrypted.
        public var keyPath: String

        /// Creates a client certificate from two PEM files.
        public init(certificatePath: String, keyPath: String) {
            self.certificatePath = certificatePath
            self.keyPath = keyPath
        }
    }

    /// A PEM bundle of CA certificates to verify servers with, instead of the system's.
    public var caBundlePath: String?
    /// A certificate the client presents when the server asks for one.
    public var clientCertificate: ClientCertificate?
    /// Public keys the server must present one of, as SHA-256 hashes of their
    /// SubjectPublicKeyInfo in base64: `["sha256//<base64>", …]`.
    public var pinnedPublicKeys: [String]

    /// Creates settings; the defaults trust the system's CAs and pin nothing.
    public init(
        caBundlePath: String? = nil, clientCertificate: ClientCertificate? = nil,
        pinnedPublicKeys: [String] = []
    ) {
        self.caBundlePath = caBundlePath
        self.clientCertificate = clientCertificate
        self.pinnedPublicKeys = pinnedPublicKeys
    }

    /// The system's trust store, no client certificate, no pins.
    public static let system = TLSSettings()
}
