#if AsyncHTTPClient
    @_spi(Transport) import CourierCore
    @_spi(Transport) import CourierTLS
    import NIOSSL

    /// ``CourierTLS/TLSSettings`` as NIOSSL's `TLSConfiguration`.
    enum AHCTLS {
        /// The client configuration for `settings`: certificate verification
        /// always on; a CA bundle replaces the system's roots (as with
        /// CurlTransport); a client certificate is presented when asked.
        /// - Throws: ``CourierCore/TransportError/Code/unsupported`` for pinned
        ///   keys — async-http-client gives no way to check the server's key
        ///   during the handshake — and ``CourierCore/TransportError/Code/tls``
        ///   when a file cannot be read.
        static func configuration(_ settings: TLSSettings) throws(TransportError) -> TLSConfiguration {
            // NIOSSL has a verification callback, but async-http-client builds
            // its TLS handlers itself and takes none through its public API.
            guard settings.pinnedPublicKeys.isEmpty, settings.pinning.isEmpty else {
                throw TransportError(
                    .unsupported,
                    "AsyncHTTPClientTransport cannot pin public keys (async-http-client exposes no verification hook); use CurlTransport"
                )
            }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .fullVerification
            do {
                if let path = settings.caBundlePath {
                    configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
                }
                if let client = settings.clientCertificate {
                    configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(client.certificatePath)
                        .map { .certificate($0) }
                    configuration.privateKey = .privateKey(
                        try NIOSSLPrivateKey(file: client.keyPath, format: .pem))
                }
            } catch {
                throw TransportError(.tls, "cannot load the TLS settings: \(error)")
            }
            return configuration
        }
    }
#endif
