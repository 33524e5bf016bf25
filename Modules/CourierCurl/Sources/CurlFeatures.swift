import CCurl

/// What the libcurl this process loaded can do, probed at run time.
public struct CurlFeatures: Sendable, Hashable {
    /// libcurl's version, e.g. `7.88.1`.
    public var version: String
    /// The TLS library and its version, e.g. `OpenSSL/3.0.11`; `nil` without TLS.
    public var tlsBackend: String?
    /// Whether HTTP/2 is available (nghttp2).
    public var http2: Bool
    /// Content encodings libcurl can decompress: `gzip`, `deflate`, `br`, `zstd`.
    public var encodings: [String]

    /// The features of the loaded libcurl.
    public static let current: CurlFeatures = {
        guard let info = courier_version_info()?.pointee else {
            return CurlFeatures(version: "unknown", tlsBackend: nil, http2: false, encodings: [])
        }
        let bits = info.features
        var encodings: [String] = []
        if bits & CURL_VERSION_LIBZ != 0 { encodings += ["gzip", "deflate"] }
        if bits & CURL_VERSION_BROTLI != 0 { encodings.append("br") }
        if bits & CURL_VERSION_ZSTD != 0 { encodings.append("zstd") }
        return CurlFeatures(
            version: info.version.map { String(cString: $0) } ?? "unknown",
            tlsBackend: info.ssl_version.map { String(cString: $0) },
            http2: bits & CURL_VERSION_HTTP2 != 0,
            encodings: encodings)
    }()
}
