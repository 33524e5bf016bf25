/// Where a request goes before its origin: one value, given to any transport
/// (`CurlTransport`, `URLSessionTransport`, `AsyncHTTPClientTransport`), that
/// means the same route on each.
///
/// ```swift
/// // Every request through one proxy, except internal hosts:
/// let proxy = ProxyConfiguration.through(
///     try Proxy(url: "http://proxy.corp.example:3128"),
///     except: try NoProxyList("localhost, .corp.example, 10.0.0.0/8"))
/// // The environment's http_proxy, HTTPS_PROXY, ALL_PROXY and NO_PROXY,
/// // read because the app asks for them:
/// let fromEnvironment = try ProxyConfiguration.environment()
/// // A choice per request:
/// let chosen = ProxyConfiguration.choosing { target in
///     target.host.hasSuffix(".partner.example") ? partnerProxy : nil
/// }
/// ```
///
/// The default of every transport is ``direct``: Courier never reads proxy
/// settings from the environment unless the app asks with ``environment(_:)``
/// (libcurl, and so FoundationNetworking's URLSession, would read
/// `http_proxy` silently; CurlTransport turns that off). A setting a
/// transport cannot carry out fails when the transport is made, with a
/// `TransportError` of code `.unsupported` naming it — never by connecting
/// directly instead.
public struct ProxyConfiguration: Sendable, CustomStringConvertible {
    private enum Rule: Sendable {
        case direct
        case fixed(http: Proxy?, https: Proxy?, except: NoProxyList)
        case choosing(@Sendable (ProxyTarget) -> Proxy?)
    }

    private let rule: Rule

    private init(_ rule: Rule) { self.rule = rule }

    /// No proxy: every request connects to its origin (the default).
    public static let direct = ProxyConfiguration(.direct)

    /// Every request through `proxy`, except to the hosts of `except`.
    public static func through(_ proxy: Proxy, except: NoProxyList = .none) -> ProxyConfiguration {
        ProxyConfiguration(.fixed(http: proxy, https: proxy, except: except))
    }

    /// `http://` requests through `http`, `https://` ones through `https`
    /// (`nil`: directly), except to the hosts of `except`.
    public static func perScheme(http: Proxy?, https: Proxy?, except: NoProxyList = .none)
        -> ProxyConfiguration
    {
        guard http != nil || https != nil else { return .direct }
        return ProxyConfiguration(.fixed(http: http, https: https, except: except))
    }

    /// A proxy chosen for each request (each hop of a redirect is a request
    /// of its own): `choose` returns the proxy, or `nil` to connect directly.
    /// It runs on the transport's path to the network: keep it quick and
    /// free of waits. A transport that cannot carry out the proxy it returns
    /// fails that request with `.unsupported`.
    public static func choosing(_ choose: @escaping @Sendable (ProxyTarget) -> Proxy?) -> ProxyConfiguration {
        ProxyConfiguration(.choosing(choose))
    }

    /// The proxy for a request to `target`; `nil` to connect directly.
    public func proxy(for target: ProxyTarget) -> Proxy? {
        switch rule {
        case .direct:
            return nil
        case .fixed(let http, let https, let except):
            let proxy = target.scheme == "http" ? http : https
            guard let proxy, !except.contains(host: target.host, port: target.port) else { return nil }
            return proxy
        case .choosing(let choose):
            return choose(target)
        }
    }

    /// Whether every request connects directly.
    public var isDirect: Bool {
        if case .direct = rule { return true }
        return false
    }

    /// Every proxy this configuration can name, known before any request:
    /// what a transport checks when it is made. Empty for ``direct`` and
    /// for a ``choosing(_:)`` configuration (see ``choosesPerRequest``).
    public var knownProxies: [Proxy] {
        guard case .fixed(let http, let https, _) = rule else { return [] }
        return [http, https].compactMap { $0 }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// Whether the proxy is chosen by a closure, request by request, so that
    /// a transport can check it only when a request is made.
    public var choosesPerRequest: Bool {
        if case .choosing = rule { return true }
        return false
    }

    /// `direct`, `http → …, https → …, except …` (passwords masked) or `chosen per request`.
    public var description: String {
        switch rule {
        case .direct:
            return "direct"
        case .fixed(let http, let https, let except):
            var text = "http → \(http.map(String.init(describing:)) ?? "direct"), "
            text += "https → \(https.map(String.init(describing:)) ?? "direct")"
            return except.description.isEmpty ? text : text + ", except \(except)"
        case .choosing:
            return "chosen per request"
        }
    }
}

/// Where a request is going, as a proxy choice sees it.
public struct ProxyTarget: Sendable, Hashable {
    /// `http` or `https`, lowercased.
    public var scheme: String
    /// The origin's host: a name, or an address (IPv6 without brackets).
    public var host: String
    /// The origin's port, the scheme's default when the URL names none.
    public var port: Int

    /// Creates a target.
    public init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// The target of a request with this scheme and authority
    /// (`host[:port]`, `[v6][:port]`, any user information dropped); `nil`
    /// without a host.
    public init?(scheme: String, authority: String) {
        var hostPort = Substring(authority)
        if let at = hostPort.lastIndex(of: "@") { hostPort = hostPort[hostPort.index(after: at)...] }
        let scheme = scheme.lowercased()
        let defaultPort = scheme == "http" ? 80 : 443
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            let host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            self.init(scheme: scheme, host: String(host), port: Int(after.dropFirst()) ?? defaultPort)
        } else if let colon = hostPort.lastIndex(of: ":") {
            self.init(
                scheme: scheme, host: String(hostPort[..<colon]),
                port: Int(hostPort[hostPort.index(after: colon)...]) ?? defaultPort)
        } else {
            self.init(scheme: scheme, host: String(hostPort), port: defaultPort)
        }
        if host.isEmpty { return nil }
    }
}
