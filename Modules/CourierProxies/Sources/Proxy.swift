import CourierCore
public import CourierTLS

/// One proxy server: its kind, where it listens, the credentials it asks
/// for and, for an HTTPS proxy, whom to trust on the way to it.
///
/// Made from a URL as curl and the environment write them, or field by field:
///
/// ```swift
/// let corporate = try Proxy(url: "http://proxy.corp.example:3128")
/// let tunnel = Proxy(.socks5, host: "127.0.0.1", port: 1080)
/// let guarded = try Proxy(url: "http://alice:s3cret@proxy.corp.example:3128")  // Basic
/// ```
///
/// Its ``description`` never shows the password (`Redaction`'s rule for
/// URLs), so a proxy can be logged or printed as it is.
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// How the client speaks to the proxy.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An HTTP proxy over plaintext: `http://` requests are sent to it in
        /// absolute form, `https://` ones through a `CONNECT` tunnel.
        case http
        /// An HTTP proxy reached over TLS (``Proxy/tls`` says whom to trust);
        /// requests go to it as to an ``http`` proxy, inside that TLS.
        case https
        /// A SOCKS5 proxy (RFC 1928). The proxy resolves the origin's name:
        /// `socks5://` and `socks5h://` both mean this, so that no DNS query
        /// for the origin leaves the client (curl resolves locally for
        /// `socks5://`; Courier never does).
        case socks5
    }

    /// The credentials a proxy asks for, and how to present them.
    public struct Credentials: Sendable, Hashable {
        /// How credentials are presented to the proxy.
        public enum Scheme: String, Sendable, Hashable {
            /// `Proxy-Authorization: Basic`, sent with the first request or
            /// `CONNECT` (RFC 7617). SOCKS5 proxies use username/password
            /// authentication (RFC 1929) with the same pair.
            case basic
            /// Digest (RFC 7616), answered to the proxy's `407` challenge.
            case digest
        }

        /// The user name, as the proxy knows it.
        public var user: String
        /// The password. Never printed: ``Proxy/description`` masks it.
        public var password: String
        /// How to present them; ``Scheme/basic`` by default.
        public var scheme: Scheme

        /// Creates credentials for a proxy.
        public init(user: String, password: String, scheme: Scheme = .basic) {
            self.user = user
            self.password = password
            self.scheme = scheme
        }
    }

    /// How the client speaks to the proxy.
    public var kind: Kind
    /// The proxy's host name or address (an IPv6 address without brackets).
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The credentials the proxy asks for; `nil` for none.
    public var credentials: Credentials?
    /// Whom to trust on the TLS connection to an ``Kind/https`` proxy (its
    /// CA, its pins); unused by the other kinds. The origin's trust is the
    /// transport's own `TLSSettings`.
    public var tls: TLSSettings

    /// Creates a proxy.
    /// - Parameters:
    ///   - kind: How the client speaks to it.
    ///   - host: Its host name or address.
    ///   - port: Its port; `nil` for the kind's default (``defaultPort(for:)``).
    ///   - credentials: What it asks for, if anything.
    ///   - tls: Whom to trust on the way to an HTTPS proxy.
    public init(
        _ kind: Kind, host: String, port: Int? = nil, credentials: Credentials? = nil,
        tls: TLSSettings = .system
    ) {
        self.kind = kind
        self.host = host
        self.port = port ?? Self.defaultPort(for: kind)
        self.credentials = credentials
        self.tls = tls
    }

    /// A proxy's port when its URL names none: curl's defaults — 1080 for
    /// HTTP and SOCKS proxies, 443 for HTTPS ones.
    public static func defaultPort(for kind: Kind) -> Int {
        kind == .https ? 443 : 1080
    }

    /// `kind://user:***@host:port`, the password masked.
    public var description: String {
        var text = "\(kind.rawValue)://"
        if let credentials {
            text += "\(credentials.user):\(Redaction.standard.mask)@"
        }
        return text + "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}
