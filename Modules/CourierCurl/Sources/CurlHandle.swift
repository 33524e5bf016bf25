import CCurl
import CourierCore
import CourierProxies
import CourierTLS

#if canImport(CCurlOpenSSL)
    import CCurlOpenSSL
#endif

/// An easy handle with the options every request of one transport shares,
/// set once when the handle is made, and its error buffer. Requests set only
/// what differs between them (``CurlTransfer/configure()``), so a pooled
/// handle is never reset: `curl_easy_reset` and twenty option calls per
/// request were a measurable part of a small request's cost.
final class CurlHandle {
    let pointer: UnsafeMutableRawPointer
    /// libcurl's error buffer: the detail behind a failed transfer.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// Whether this libcurl has `CURLOPT_PREREQFUNCTION` (7.80).
    let hasPrerequestHook: Bool
    /// Whether new connections check the chain against pins (``CurlPinning``).
    let checksPins: Bool
    private let httpVersion: CurlTransport.Configuration.HTTPVersion
    /// The transport's connect timeout, and the one the handle has now: a
    /// request with its own sets it, the next one without puts the
    /// transport's back (``bound(connect:)``).
    private let sharedConnect: Int
    private var connect: Int
    /// The proxy the handle's options route through now (``route(through:)``); `nil` for direct.
    var routedThrough: Proxy?
    /// `CURLOPT_CONNECT_TO`'s list (``CurlTransport/Configuration/hostOverrides``), freed with the handle.
    private var connectTo: UnsafeMutablePointer<curl_slist>?

    init(configuration: CurlTransport.Configuration, socketOpener: CurlSocketOpener?) throws(TransportError) {
        guard let pointer = curl_easy_init() else { throw TransportError(.other, "curl_easy_init failed") }
        self.pointer = pointer
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        self.httpVersion = configuration.httpVersion
        sharedConnect = configuration.connectTimeoutMilliseconds
        connect = sharedConnect
        self.hasPrerequestHook =
            courier_easy_setopt_prereq_function(pointer, CURLOPT_PREREQFUNCTION, curlPrerequest) == CURLE_OK
        self.checksPins = CurlPinning.checksChain(configuration.tls)
        try applyShared(configuration)
        if let socketOpener {
            try CurlErrorMapping.check(
                courier_easy_setopt_opensocket_function(
                    pointer, CURLOPT_OPENSOCKETFUNCTION, socketOpener.callback))
            try CurlErrorMapping.check(
                courier_easy_setopt_pointer(pointer, CURLOPT_OPENSOCKETDATA, socketOpener.context))
        }
    }

    /// Sets a request's connect timeout, or the transport's when it has none.
    func bound(connect: Duration?) throws(TransportError) {
        let connect = connect.map { max(1, Int($0.milliseconds)) } ?? sharedConnect
        guard connect != self.connect else { return }
        try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_CONNECTTIMEOUT_MS, connect))
        self.connect = connect
    }

    /// Whether the handle may speak HTTP/2: only then is `CURLOPT_PIPEWAIT`
    /// set per request (an HTTP/1-only handle keeps libcurl's 0).
    var mayMultiplex: Bool { httpVersion != .http1 }

    /// Whether a request to `scheme` should wait for a connection being made
    /// to say whether it multiplexes (HTTP/2) rather than open one of its
    /// own (`CURLOPT_PIPEWAIT`): a burst then shares one connection. Only
    /// where the answer comes with the connection — TLS (ALPN) or prior
    /// knowledge; over cleartext HTTP/1.1 libcurl would learn it only when
    /// the first response ends, and the burst would queue behind it.
    func waitsToMultiplex(scheme: String) -> Bool {
        switch httpVersion.kind {
        case .http1: false
        case .http2PriorKnowledge: CurlFeatures.current.http2PriorKnowledgeReusesConnections
        default: scheme == "https" || scheme.lowercased() == "https"
        }
    }

    deinit {
        curl_easy_cleanup(pointer)
        curl_slist_free_all(connectTo)
        errorBuffer.deallocate()
    }

    /// `HOST::TARGET:` per override: any port of `HOST` connects to `TARGET`
    /// on the same port (an IPv6 address in brackets).
    static func connectToEntries(_ overrides: [String: String]) throws(TransportError) -> [String] {
        try overrides.sorted { $0.key < $1.key }.map { (host, target) throws(TransportError) in
            let invalid = { (text: String) in
                text.isEmpty || text.utf8.contains { $0 <= 32 || $0 == 127 || $0 == UInt8(ascii: ",") }
            }
            guard !invalid(host), !host.contains(":"), !invalid(target) else {
                throw TransportError(
                    .other, "hostOverrides: \"\(host)\" → \"\(target)\" is not a host and a target")
            }
            let bracketed = target.contains(":") && !target.hasPrefix("[") ? "[\(target)]" : target
            return "\(host)::\(bracketed):"
        }
    }

    private func applyShared(_ settings: CurlTransport.Configuration) throws(TransportError) {
        try CurlErrorMapping.check(courier_easy_setopt_string(pointer, CURLOPT_PROTOCOLS_STR, "http,https"))
        try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_NOSIGNAL, 1))
        try CurlErrorMapping.check(courier_easy_setopt_pointer(pointer, CURLOPT_ERRORBUFFER, errorBuffer))
        // Courier follows redirects itself (RedirectPolicy).
        try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_FOLLOWLOCATION, 0))
        try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_SSL_VERIFYPEER, 1))
        try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_SSL_VERIFYHOST, 2))
        try CurlErrorMapping.check(
            courier_easy_setopt_long(pointer, CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds))
        // Content codings are undone by CurlTransfer (ContentDecoder), which
        // hands an unknown one over as it came; libcurl would fail the transfer.
        try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_HTTP_CONTENT_DECODING, 0))
        try CurlErrorMapping.check(
            courier_easy_setopt_write_function(pointer, CURLOPT_WRITEFUNCTION, curlWrite))
        try CurlErrorMapping.check(
            courier_easy_setopt_write_function(pointer, CURLOPT_HEADERFUNCTION, curlHeader))
        try CurlErrorMapping.check(courier_easy_setopt_read_function(pointer, CURLOPT_READFUNCTION, curlRead))
        try CurlErrorMapping.check(courier_easy_setopt_seek_function(pointer, CURLOPT_SEEKFUNCTION, curlSeek))
        if !settings.hostOverrides.isEmpty {
            for entry in try Self.connectToEntries(settings.hostOverrides) {
                connectTo = curl_slist_append(connectTo, entry)
            }
            try CurlErrorMapping.check(courier_easy_setopt_slist(pointer, CURLOPT_CONNECT_TO, connectTo))
        }
        if let (rate, seconds) = settings.lowSpeedLimit {
            try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_LOW_SPEED_LIMIT, rate))
            try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_LOW_SPEED_TIME, seconds))
        }
        let version: Int32 =
            switch settings.httpVersion.kind {
            case .automatic: Int32(CURL_HTTP_VERSION_2TLS)
            case .http1: Int32(CURL_HTTP_VERSION_1_1)
            case .http2PriorKnowledge: Int32(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
            }
        try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_HTTP_VERSION, Int(version)))
        if settings.httpVersion == .http2PriorKnowledge,
            !CurlFeatures.current.http2PriorKnowledgeReusesConnections
        {
            // This libcurl breaks every request after the first on a
            // prior-knowledge connection (CurlFeatures): one connection each.
            try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_FRESH_CONNECT, 1))
            try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_FORBID_REUSE, 1))
        }
        // Direct until a request is routed through a proxy (route(through:)):
        // "" also stops libcurl from reading http_proxy and the like from the
        // environment, which Courier does only when the app asks.
        try CurlErrorMapping.check(courier_easy_setopt_string(pointer, CURLOPT_PROXY, ""))
        // A tunnel's CONNECT response is the proxy's, not the origin's head.
        try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
        if let bundle = settings.tls.caBundlePath {
            try CurlErrorMapping.check(courier_easy_setopt_string(pointer, CURLOPT_CAINFO, bundle))
        }
        if let client = settings.tls.clientCertificate {
            try CurlErrorMapping.check(
                courier_easy_setopt_string(pointer, CURLOPT_SSLCERT, client.certificatePath))
            try CurlErrorMapping.check(courier_easy_setopt_string(pointer, CURLOPT_SSLKEY, client.keyPath))
        }
        if checksPins {
            #if canImport(CCurlOpenSSL)
                try CurlErrorMapping.check(courier_easy_check_pins(pointer))
            #endif
        } else if !settings.tls.pinnedPublicKeys.isEmpty {
            // Another TLS library: libcurl's own check, of the leaf's key only.
            let pins = settings.tls.pinnedPublicKeys.joined(separator: ";")
            try CurlErrorMapping.check(courier_easy_setopt_string(pointer, CURLOPT_PINNEDPUBLICKEY, pins))
        }
    }

}

/// How easy handles open sockets when the engine must hear of each new one
/// (the epoll loop): a callback and its context.
struct CurlSocketOpener: @unchecked Sendable {
    // Safe: stored by the handle pool and handed to libcurl, which calls back
    // only on the engine thread, inside calls the engine makes, while the
    // engine (which owns the context) lives.
    let callback: curl_opensocket_callback
    let context: UnsafeMutableRawPointer
}
