/// The hosts reached directly although a proxy is set: curl's `NO_PROXY`
/// semantics, in one place for every transport.
///
/// A comma- (or space-) separated list of entries:
///
/// - `*` alone: every host (no proxy at all);
/// - a host name, with or without a leading dot: that host and every host
///   under it (`example.com` and `.example.com` both match `example.com`,
///   `api.example.com`, not `badexample.com`), without case, a trailing dot
///   on either side ignored;
/// - an IPv4 or IPv6 address, an IPv6 one with or without brackets: that
///   address, when the request names it literally (names are not resolved);
/// - an address range in CIDR form: `10.0.0.0/8`, `fd00::/8`;
/// - any of these followed by `:port` (an IPv6 address then in brackets):
///   only requests to that port. curl has no ports in `NO_PROXY`; without
///   one an entry matches every port, as in curl.
///
/// ```swift
/// let internal = try NoProxyList("localhost, .corp.example, 10.0.0.0/8, [::1], registry.local:5000")
/// internal.contains(host: "git.corp.example", port: 443)  // true
/// ```
public struct NoProxyList: Sendable, Hashable, CustomStringConvertible {
    private enum Pattern: Hashable, Sendable {
        case everything
        case domain(String)
        case address(IPAddress, prefixLength: Int)
    }

    private struct Entry: Hashable, Sendable {
        var pattern: Pattern
        var port: Int?
    }

    private let entries: [Entry]
    /// The list as given.
    public let description: String

    /// No exceptions: every request goes through the proxy.
    public static let none = NoProxyList(entries: [], description: "")

    private init(entries: [Entry], description: String) {
        self.entries = entries
        self.description = description
    }

    /// Reads a list in curl's `NO_PROXY` form (see the type's documentation).
    /// - Throws: ``InvalidProxyError`` for an entry that is not a name, an
    ///   address or a range, or has a bad prefix length or port.
    public init(_ list: String) throws(InvalidProxyError) {
        var entries: [Entry] = []
        for raw in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            entries.append(try Self.entry(raw, in: list))
        }
        self.init(entries: entries, description: list)
    }

    /// Whether a request to `host` on `port` goes directly.
    /// - Parameters:
    ///   - host: The request's host: a name, or an address (an IPv6 one with
    ///     or without brackets).
    ///   - port: The request's port (its scheme's default when the URL has none).
    /// - Returns: Whether an entry matches.
    public func contains(host: String, port: Int) -> Bool {
        guard !entries.isEmpty else { return false }
        let address = IPAddress(host)
        let name = Self.normalized(host)
        return entries.contains { entry in
            if let wanted = entry.port, wanted != port { return false }
            switch entry.pattern {
            case .everything:
                return true
            case .domain(let domain):
                return address == nil && (name == domain || name.hasSuffix("." + domain))
            case .address(let range, let prefixLength):
                return address.map { range.shares(prefixLength: prefixLength, with: $0) } ?? false
            }
        }
    }

    private static func entry(_ raw: Substring, in list: String) throws(InvalidProxyError) -> Entry {
        if raw == "*" { return Entry(pattern: .everything, port: nil) }
        var text = raw
        var port: Int?
        // A port: after "]" for a bracketed IPv6 address, else after the
        // only colon (an unbracketed IPv6 address has several, and no port).
        let colons = text.filter { $0 == ":" }.count
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let inside = text[text.index(after: text.startIndex)..<close]
            var after = text[text.index(after: close)...]
            var range: Substring = ""
            if after.hasPrefix("/") {
                let end = after.firstIndex(of: ":") ?? after.endIndex
                range = after[..<end]
                after = after[end...]
            }
            if after.hasPrefix(":") {
                port = try Self.port(after.dropFirst(), in: list)
            } else if !after.isEmpty {
                throw InvalidProxyError(list, "\"\(raw)\" has text after its address")
            }
            text = Substring(String(inside) + range)
        } else if colons == 1, let colon = text.firstIndex(of: ":") {
            port = try Self.port(text[text.index(after: colon)...], in: list)
            text = text[..<colon]
        }
        if let slash = text.firstIndex(of: "/") {
            guard let address = IPAddress(text[..<slash]), let bits = Int(text[text.index(after: slash)...]),
                (0...(address.bytes.count * 8)).contains(bits)
            else { throw InvalidProxyError(list, "\"\(raw)\" is not an address range") }
            return Entry(pattern: .address(address, prefixLength: bits), port: port)
        }
        if let address = IPAddress(text) {
            return Entry(pattern: .address(address, prefixLength: address.bytes.count * 8), port: port)
        }
        var domain = Self.normalized(text)
        while domain.hasPrefix(".") { domain.removeFirst() }
        guard !domain.isEmpty, !domain.contains(where: { $0 == "/" || $0 == "@" || $0 == "[" || $0 == "]" })
        else { throw InvalidProxyError(list, "\"\(raw)\" is not a host name, an address or a range") }
        return Entry(pattern: .domain(domain), port: port)
    }

    private static func port(_ text: Substring, in list: String) throws(InvalidProxyError) -> Int {
        guard let port = Int(text), (1...65_535).contains(port) else {
            throw InvalidProxyError(list, "the port \"\(text)\" is not a number from 1 to 65535")
        }
        return port
    }

    /// Lowercased, without a trailing dot.
    private static func normalized(_ host: some StringProtocol) -> String {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }
}
