import CCurl

/// What the libcurl this process loaded can do, probed at run time.
public struct CurlFeatures: Sendable, Hashable {
    /// libcurl's version, e.g. `7.88.1`.
    public var version: String
    /// The TLS library and its version, e.g. `OpenSSL/3.0.11`; `nil` without TLS.
    public var tlsBackend: String?
    /// Whether HTTP/2 is available (nghttp2).
    public var http2: Bool
    /// Content encodings libcurl can decompress: `gzip`, `deflate`, `br`,
    /// `zstd`. `CurlTransport` does not use them: it decodes `gzip` and
    /// `deflate` itself and hands other codings over as they came.
    public var encodings: [String]
    /// Whether HTTP/2 with prior knowledge (cleartext, no upgrade) can carry
    /// more than one request per connection. libcurl 7.88.0 and 7.88.1 fail
    /// every request sent on an existing prior-knowledge connection ("Error
    /// in the HTTP2 framing layer", fixed in 8.0.0); with them,
    /// `CurlTransport` gives each such request a connection of its own.
    public var http2PriorKnowledgeReusesConnections: Bool
    /// Whether this libcurl speaks WebSocket (`ws` and `wss` among its
    /// protocols): built in from 8.11 by default, experimental and usually
    /// left out before (Debian 12's 7.88 has the functions but not the
    /// protocol). Without it, `CurlTransport` says so when a WebSocket is
    /// opened (`.webSocketUnsupported`), before anything is sent; apps ask
    /// `APIClient.webSocketUnavailability`, which says why.
    var webSockets: Bool
    /// Whether libcurl can be told not to answer pings itself
    /// (`CURLWS_NOAUTOPONG`, 8.14): then Courier's own pong is the only one.
    var webSocketPongsOptional: Bool

    /// The features of the loaded libcurl.
    public static let current: CurlFeatures = {
        guard let info = courier_version_info()?.pointee else {
            return CurlFeatures(
                version: "unknown", tlsBackend: nil, http2: false, encodings: [],
                http2PriorKnowledgeReusesConnections: false, webSockets: false,
                webSocketPongsOptional: false)
        }
        let bits = info.features
        var encodings: [String] = []
        if bits & CURL_VERSION_LIBZ != 0 { encodings += ["gzip", "deflate"] }
        if bits & CURL_VERSION_BROTLI != 0 { encodings.append("br") }
        if bits & CURL_VERSION_ZSTD != 0 { encodings.append("zstd") }
        var protocols: Set<String> = []
        if var list = info.protocols {
            while let name = list.pointee {
                protocols.insert(String(cString: name))
                list += 1
            }
        }
        return CurlFeatures(
            version: info.version.map { String(cString: $0) } ?? "unknown",
            tlsBackend: info.ssl_version.map { String(cString: $0) },
            http2: bits & CURL_VERSION_HTTP2 != 0,
            encodings: encodings,
            // 7.88.x is 0x0758xx.
            http2PriorKnowledgeReusesConnections: info.version_num >> 8 != 0x0758,
            webSockets: protocols.contains("ws"),
            webSocketPongsOptional: info.version_num >= 0x08_0E_00)
    }()
}
