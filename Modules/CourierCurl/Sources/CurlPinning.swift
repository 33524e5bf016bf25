import CCurl
@_spi(Transport) import CourierCore
@_spi(Transport) import CourierTLS
import Foundation
import HTTPTypes

#if canImport(CCurlOpenSSL)
    import CCurlOpenSSL
#endif

/// Certificate pinning for `CurlTransport` (``/CourierTLS/TLSSettings/pinnedPublicKeys``
/// and ``/CourierTLS/TLSSettings/pinning``).
///
/// With libcurl over OpenSSL, every new connection's handshake checks the
/// verified chain — leaf, intermediates, root — against the host's pins
/// (CCurlOpenSSL's verification callback, which calls back into
/// ``curlChainIsPinned(_:_:_:)``), and a mismatch fails the request naming
/// the host, the chain's keys and the pins. A reused connection was checked
/// when it was opened, for the same host and the same pins. Over another TLS
/// library only ``/CourierTLS/TLSSettings/pinnedPublicKeys`` can be honoured
/// (libcurl's `CURLOPT_PINNEDPUBLICKEY`: the leaf's key only), and per-host
/// pinning is refused when the transport is made.
enum CurlPinning {
    /// Whether this libcurl lets Courier check the chain (its TLS library is OpenSSL).
    static var checksChainHere: Bool {
        #if canImport(CCurlOpenSSL)
            return CurlFeatures.current.tlsBackend?.hasPrefix("OpenSSL") == true
        #else
            return false
        #endif
    }

    /// Whether the handles of a transport with `tls` check chains against pins.
    static func checksChain(_ tls: TLSSettings) -> Bool {
        (!tls.pinnedPublicKeys.isEmpty || !tls.pinning.isEmpty) && checksChainHere
    }

    /// Refuses, when the transport is made, pinning it could not honour.
    static func check(_ tls: TLSSettings) throws(TransportError) {
        if let problem = tls.pinning.problem {
            throw TransportError(.other, "TLSSettings.pinning: \(problem)")
        }
        guard tls.pinning.isEmpty || checksChainHere else {
            throw TransportError(
                .unsupported,
                "per-host certificate pinning needs libcurl over OpenSSL; this libcurl uses "
                    + (CurlFeatures.current.tlsBackend ?? "no TLS library"))
        }
    }

    /// The host a request goes to and the pins its chain must meet (`nil`:
    /// none, plain `http` included).
    /// - Throws: ``/CourierCore/TransportError/Code/tls`` when the host has
    ///   no pins and unpinned hosts are refused; nothing is sent.
    static func expectation(for head: HTTPRequest, _ tls: TLSSettings) throws(TransportError)
        -> (host: String, pins: [String]?)
    {
        // Nothing pinned (the usual case): nothing to work out per request.
        guard !tls.pinnedPublicKeys.isEmpty || !tls.pinning.isEmpty else { return ("", nil) }
        let host = hostName(of: head.authority ?? "")
        let pins = tls.pins(for: host)
        guard tls.admits(pins: pins) else {
            throw TransportError(
                .tls,
                "\(host) has no certificate pins and TLSSettings.pinning refuses unpinned hosts: nothing was sent"
            )
        }
        guard head.scheme?.lowercased() == "https", !pins.isEmpty else { return (host, nil) }
        return (host, pins)
    }

    /// The host of an authority: no port, no brackets around an IPv6 address.
    static func hostName(of authority: String) -> String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
    }
}

extension CurlTransfer {
    /// On the engine thread, during a new connection's handshake: whether
    /// `chain` (pins, leaf first) holds one of the transfer's pins. When it
    /// does not, the transfer's failure says which keys the host presented
    /// and which it should have.
    func acceptsChain(_ chain: [String]) -> Bool {
        guard let pins = expectedPins else { return true }
        if chain.contains(where: pins.contains) { return true }
        let presented = chain.isEmpty ? "no key" : chain.joined(separator: ", ")
        failure = TransportError(
            .tls,
            "certificate pinning: \(pinnedHost) presented \(presented) (leaf first), none of its pins "
                + "(\(pins.joined(separator: ", "))); nothing was sent")
        return false
    }
}

/// Called by CCurlOpenSSL's verification callback, on the engine thread,
/// with the transfer that opened the connection (its `CURLOPT_SSL_CTX_DATA`,
/// held by the engine while libcurl has it, as its other callbacks' context
/// is) and the chain's key hashes.
@_cdecl("courier_curl_chain_is_pinned")
func curlChainIsPinned(_ context: UnsafeMutableRawPointer?, _ hashes: UnsafePointer<UInt8>?, _ count: Int)
    -> Int32
{
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    var chain: [String] = []
    if let hashes {
        for index in 0..<max(0, count) {
            let digest = Data(UnsafeBufferPointer(start: hashes + 32 * index, count: 32))
            chain.append("sha256//" + digest.base64EncodedString())
        }
    }
    return transfer.acceptsChain(chain) ? 1 : 0
}
