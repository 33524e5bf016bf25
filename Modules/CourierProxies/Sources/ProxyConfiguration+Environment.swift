#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension ProxyConfiguration {
    /// The proxies the environment names, by curl's rules — read only
    /// because the app asks.
    ///
    /// For an `https://` request: `https_proxy`, else `HTTPS_PROXY`; for an
    /// `http://` one: `http_proxy` only — never `HTTP_PROXY`, which a CGI
    /// server sets from a request's `Proxy:` header ("httpoxy",
    /// CVE-2016-5385); else `all_proxy`, else `ALL_PROXY`. `no_proxy`, else
    /// `NO_PROXY`, lists the exceptions (``NoProxyList``). An empty variable
    /// counts as unset.
    /// - Parameter variables: The environment to read; the process's when `nil`.
    /// - Returns: The proxies per scheme and their exceptions; ``direct`` when none is named.
    /// - Throws: ``InvalidProxyError`` for a proxy URL or no-proxy list that
    ///   cannot be used (better than connecting directly without saying so).
    public static func environment(_ variables: [String: String]? = nil) throws(InvalidProxyError)
        -> ProxyConfiguration
    {
        let variables = variables ?? processEnvironment()
        func value(_ names: String...) -> String? {
            for name in names {
                if let value = variables[name], !value.trimmingASCIISpaces().isEmpty { return value }
            }
            return nil
        }
        let all = value("all_proxy", "ALL_PROXY")
        let http = try (value("http_proxy") ?? all).map { (url) throws(InvalidProxyError) in
            try Proxy(url: url)
        }
        let https = try (value("https_proxy", "HTTPS_PROXY") ?? all).map { (url) throws(InvalidProxyError) in
            try Proxy(url: url)
        }
        let except = try value("no_proxy", "NO_PROXY").map { (list) throws(InvalidProxyError) in
            try NoProxyList(list)
        }
        return .perScheme(http: http, https: https, except: except ?? .none)
    }

    /// The process's environment variables.
    private static func processEnvironment() -> [String: String] {
        var variables: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        return variables
    }
}
