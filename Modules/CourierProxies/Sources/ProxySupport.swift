public import CourierCore
import CourierTLS

/// What a transport can do with proxies: the one place where a
/// ``ProxyConfiguration`` is checked against it, when the transport is made
/// and, for a proxy chosen per request, when the request is sent.
@_spi(Transport) public struct ProxySupport: Sendable {
    /// The transport's name, for errors.
    public var transport: String
    /// The proxy kinds it can speak through.
    public var kinds: Set<Proxy.Kind>
    /// The credential schemes it can present, per kind (SOCKS5 with
    /// credentials means RFC 1929's username and password).
    public var schemes: [Proxy.Kind: Set<Proxy.Credentials.Scheme>]
    /// Whether it can trust an HTTPS proxy with settings other than the
    /// system's (a CA of its own, pins, a client certificate).
    public var customProxyTLS: Bool
    /// Whether it can choose a proxy per request.
    public var choosesPerRequest: Bool

    /// Creates a transport's description of what it can do.
    public init(
        transport: String, kinds: Set<Proxy.Kind>, schemes: [Proxy.Kind: Set<Proxy.Credentials.Scheme>],
        customProxyTLS: Bool, choosesPerRequest: Bool
    ) {
        self.transport = transport
        self.kinds = kinds
        self.schemes = schemes
        self.customProxyTLS = customProxyTLS
        self.choosesPerRequest = choosesPerRequest
    }

    /// Throws when `configuration` asks for what this transport cannot do.
    /// - Throws: `TransportError` `.unsupported`, naming the setting.
    public func check(_ configuration: ProxyConfiguration) throws(TransportError) {
        if configuration.choosesPerRequest, !choosesPerRequest {
            throw TransportError(
                .unsupported, "\(transport) cannot choose a proxy per request (ProxyConfiguration.choosing)")
        }
        for proxy in configuration.knownProxies { try check(proxy) }
    }

    /// Throws when `proxy` is one this transport cannot go through.
    /// - Throws: `TransportError` `.unsupported`, naming the setting.
    public func check(_ proxy: Proxy) throws(TransportError) {
        guard kinds.contains(proxy.kind) else {
            throw TransportError(
                .unsupported, "\(transport) cannot go through \(proxy.kind.rawValue) proxies (\(proxy))")
        }
        if let credentials = proxy.credentials, !(schemes[proxy.kind] ?? []).contains(credentials.scheme) {
            throw TransportError(
                .unsupported,
                "\(transport) cannot present \(credentials.scheme.rawValue) credentials to a "
                    + "\(proxy.kind.rawValue) proxy (\(proxy))")
        }
        if proxy.kind == .https, proxy.tls != .system, !customProxyTLS {
            throw TransportError(
                .unsupported,
                "\(transport) trusts an HTTPS proxy only by the system's CAs (Proxy.tls of \(proxy))")
        }
    }

    /// The proxy for a request to `scheme://authority`, checked: `nil` to
    /// connect directly.
    /// - Throws: `TransportError` `.unsupported` for a chosen proxy this
    ///   transport cannot go through (the request is not sent directly).
    public func proxy(for configuration: ProxyConfiguration, scheme: String, authority: String)
        throws(TransportError) -> Proxy?
    {
        guard !configuration.isDirect, let target = ProxyTarget(scheme: scheme, authority: authority),
            let proxy = configuration.proxy(for: target)
        else { return nil }
        if configuration.choosesPerRequest { try check(proxy) }
        return proxy
    }
}

extension TransportError.Code {
    /// The proxy could not be reached: nothing listens there, or its name
    /// does not resolve. The request was not sent directly instead.
    public static let proxyUnreachable = Self("proxyUnreachable")
    /// The proxy refused the client's credentials (`407` after they were
    /// presented), or asked for credentials the client does not have.
    public static let proxyAuthenticationFailed = Self("proxyAuthenticationFailed")
    /// The proxy answered `CONNECT` with something other than `2xx`; the
    /// message carries its status.
    public static let proxyTunnelFailed = Self("proxyTunnelFailed")
    /// The SOCKS5 proxy refused or failed the connection (its reply code in
    /// the message), or spoke something other than SOCKS5.
    public static let socksFailed = Self("socksFailed")
}
