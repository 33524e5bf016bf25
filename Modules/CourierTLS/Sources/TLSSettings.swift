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
    /// Public keys every server must present one of, as SHA-256 hashes of their
    /// SubjectPublicKeyInfo in base64: `["sha256//<base64>", …]`. For pins
    /// that differ by host, ``pinning``.
    public var pinnedPublicKeys: [String]
    /// Pins per host pattern, and what to do with a host that has none
    /// (``CertificatePinning``); ``CertificatePinning/none`` by default.
    public var pinning: CertificatePinning

    /// Creates settings; the defaults trust the system's CAs and pin nothing.
    public init(
        caBundlePath: String? = nil, clientCertificate: ClientCertificate? = nil,
        pinnedPublicKeys: [String] = [], pinning: CertificatePinning = .none
    ) {
        self.caBundlePath = caBundlePath
        self.clientCertificate = clientCertificate
        self.pinnedPublicKeys = pinnedPublicKeys
        self.pinning = pinning
    }

    /// The pins a request to `host` must meet: ``pinnedPublicKeys`` and the
    /// pins of every ``pinning`` pattern `host` matches; empty when it has none.
    @_spi(Transport) public func pins(for host: String) -> [String] {
        var pins = pinnedPublicKeys
        for pin in pinning.pins(for: host) ?? [] where !pins.contains(pin) { pins.append(pin) }
        return pins
    }

    /// Whether a request to `host` may be sent at all: not when it has no
    /// pins and ``pinning`` refuses unpinned hosts.
    @_spi(Transport) public func admits(host: String) -> Bool {
        admits(pins: pins(for: host))
    }

    /// Whether a request to a host whose pins (``pins(for:)``) are `pins`
    /// may be sent: for a transport that needs the pins anyway.
    package func admits(pins: [String]) -> Bool {
        pinning.unpinnedHosts == .allowed || !pins.isEmpty
    }

    /// The system's trust store, no client certificate, no pins.
    public static let system = TLSSettings()
}
