import CCurl
@_spi(Transport) import CourierCore
@_spi(Transport) import CourierProxies
@_spi(Transport) import CourierTLS

extension CurlTransport {
    /// Everything ``/CourierProxies/ProxyConfiguration`` can say: HTTP,
    /// HTTPS (with its own trust) and SOCKS5 proxies, Basic and Digest
    /// credentials (RFC 1929's for SOCKS5), a choice per request.
    static let proxySupport = ProxySupport(
        transport: "CurlTransport", kinds: Set(Proxy.Kind.allCases),
        schemes: [.http: [.basic, .digest], .https: [.basic, .digest], .socks5: [.basic]],
        customProxyTLS: true, choosesPerRequest: true)
}

extension CurlHandle {
    /// Routes the next request through `proxy`, or directly for `nil`,
    /// setting only what differs from the handle's previous request. A
    /// handle is made direct (``applyShared(_:)`` sets `CURLOPT_PROXY` to
    /// "", which also stops libcurl reading `http_proxy` from the environment).
    func route(through proxy: Proxy?) throws(TransportError) {
        guard proxy != routedThrough else { return }
        guard let proxy else {
            try CurlErrorMapping.check(courier_easy_setopt_string(pointer, CURLOPT_PROXY, ""))
            routedThrough = nil
            return
        }
        // socks5h: the proxy resolves the origin's name (Proxy.Kind.socks5).
        let scheme =
            switch proxy.kind {
            case .http: "http"
            case .https: "https"
            case .socks5: "socks5h"
            }
        let host = proxy.host.contains(":") ? "[\(proxy.host)]" : proxy.host
        try CurlErrorMapping.check(
            courier_easy_setopt_string(pointer, CURLOPT_PROXY, "\(scheme)://\(host):\(proxy.port)"))
        // User and password apart, so that no percent-encoding is involved.
        try CurlErrorMapping.check(
            courier_easy_setopt_string(pointer, CURLOPT_PROXYUSERNAME, proxy.credentials?.user))
        try CurlErrorMapping.check(
            courier_easy_setopt_string(pointer, CURLOPT_PROXYPASSWORD, proxy.credentials?.password))
        // CURLAUTH_BASIC is 1, CURLAUTH_DIGEST 2 (curl.h's macros do not import).
        let scheme401 = proxy.credentials?.scheme == .digest ? 2 : 1
        try CurlErrorMapping.check(courier_easy_setopt_long(pointer, CURLOPT_PROXYAUTH, scheme401))
        let tls = proxy.kind == .https ? proxy.tls : .system
        try CurlErrorMapping.check(
            courier_easy_setopt_string(pointer, CURLOPT_PROXY_CAINFO, tls.caBundlePath))
        try CurlErrorMapping.check(
            courier_easy_setopt_string(pointer, CURLOPT_PROXY_SSLCERT, tls.clientCertificate?.certificatePath)
        )
        try CurlErrorMapping.check(
            courier_easy_setopt_string(pointer, CURLOPT_PROXY_SSLKEY, tls.clientCertificate?.keyPath))
        let pins = tls.pins(for: proxy.host)
        guard proxy.kind != .https || tls.admits(pins: pins) else {
            throw TransportError(
                .tls, "the proxy \(proxy) has no pin, and its TLS settings refuse hosts without one")
        }
        try CurlErrorMapping.check(
            courier_easy_setopt_string(
                pointer, CURLOPT_PROXY_PINNEDPUBLICKEY, pins.isEmpty ? nil : pins.joined(separator: ";")))
        routedThrough = proxy
    }
}

extension CurlTransfer {
    /// The typed error for a transfer through a proxy that libcurl ended
    /// with `result`, when the proxy is what failed; `nil` otherwise.
    func proxyFailure(_ result: CURLcode) -> TransportError? {
        guard let proxy, let handle = easy?.pointer else { return nil }
        let detail = errorDetail
        var connectCode = 0
        _ = courier_easy_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &connectCode)
        switch result {
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            return TransportError(.proxyUnreachable, "the proxy \(proxy) could not be reached: \(detail)")
        case CURLE_PROXY:
            var reply = 0
            _ = courier_easy_getinfo_long(handle, CURLINFO_PROXY_ERROR, &reply)
            let code: TransportError.Code = proxy.kind == .socks5 ? .socksFailed : .proxyTunnelFailed
            let authentication = [Int(CURLPX_USER_REJECTED.rawValue), Int(CURLPX_NO_AUTH.rawValue)]
            return TransportError(
                proxy.kind == .socks5 && authentication.contains(reply) ? .proxyAuthenticationFailed : code,
                "the proxy \(proxy) failed the connection (libcurl's proxy error \(reply)): \(detail)")
        default:
            // Before a tunnel is answered (and on every plain request), a
            // TLS failure can only be the one to an HTTPS proxy.
            if proxy.kind == .https, connectCode == 0, CurlErrorMapping.code(for: result) == .tls {
                return TransportError(.tls, "TLS to the proxy \(proxy) failed: \(detail)")
            }
            guard connectCode != 0, !(200..<300).contains(connectCode) else { return nil }
            if connectCode == 407 {
                return TransportError(
                    .proxyAuthenticationFailed,
                    "the proxy \(proxy) answered CONNECT with 407: "
                        + (proxy.credentials == nil ? "it wants credentials" : "it refused the credentials"))
            }
            return TransportError(
                .proxyTunnelFailed, "the proxy \(proxy) answered CONNECT with \(connectCode): \(detail)")
        }
    }

    /// The error for a response that is the proxy's refusal of the
    /// client's credentials (a `407` through a proxy); `nil` otherwise.
    func proxyRefusal(status: Int) -> TransportError? {
        guard let proxy, status == 407 else { return nil }
        return TransportError(
            .proxyAuthenticationFailed,
            "the proxy \(proxy) answered 407: "
                + (proxy.credentials == nil ? "it wants credentials" : "it refused the credentials"))
    }
}
