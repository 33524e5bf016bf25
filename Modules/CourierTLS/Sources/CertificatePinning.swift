/// Public-key pins per host pattern (OkHttp's `CertificatePinner`): a host
/// with pins is trusted only when a certificate of the chain it presents —
/// after the usual verification, which pinning never replaces — carries one
/// of its pinned keys.
///
/// A pin is `sha256//` and the base64 SHA-256 of a certificate's
/// SubjectPublicKeyInfo (libcurl's and OkHttp's form):
///
/// ```sh
/// openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der \
///   | openssl dgst -sha256 -binary | base64
/// ```
///
/// Patterns, matched without case:
/// - `api.example.com`: that host only;
/// - `*.example.com`: one label before `example.com` (`api.example.com`, not
///   `example.com`, not `a.b.example.com`);
/// - `**.example.com`: any number of labels, none included
///   (`example.com`, `api.example.com`, `a.b.example.com`).
///
/// A host's pins are those of every pattern it matches, so a key can be
/// rotated by pinning the next one beside the current one, and a backup key
/// kept pinned. A host that matches no pattern is
/// ``UnpinnedHosts-swift.enum/allowed`` by default (verified as usual) or,
/// with ``UnpinnedHosts-swift.enum/refused``, refused before anything is sent.
///
/// ```swift
/// let pinning = CertificatePinning([
///     "**.example.com": ["sha256//h81Qf6k7eOQcrBnvgguQfAqTrB5W4imOndgpLvQKNqs=",  // current
///                        "sha256//GSSBRQ8zYy53mF5udBJxfTMOwiluPndU81o6n5JU1yU="], // backup
/// ])
/// let transport = try CurlTransport(configuration: .init(tls: TLSSettings(pinning: pinning)))
/// ```
///
/// `CurlTransport` checks every certificate of the verified chain (with
/// libcurl over OpenSSL) and names the chain's pins when none matches;
/// `AsyncHTTPClientTransport` and `URLSessionTransport` refuse pins with
/// `TransportError` `.unsupported` — neither lets Courier see the chain.
public struct CertificatePinning: Sendable, Hashable {
    /// What happens to a host that matches no pattern.
    public enum UnpinnedHosts: Sendable, Hashable {
        /// Verified as usual, without pins.
        case allowed
        /// Refused before anything is sent: every host the transport talks
        /// to must be pinned (plain `http` included, which cannot be).
        case refused
    }

    /// A pattern and its pins.
    public struct Rule: Sendable, Hashable {
        /// The host pattern, lowercased.
        public let pattern: String
        /// The pins, `sha256//<base64>`.
        public let pins: [String]
    }

    /// The patterns and their pins, in the order given.
    public let rules: [Rule]
    /// What happens to a host that matches no pattern.
    public var unpinnedHosts: UnpinnedHosts

    /// Pins by host pattern.
    /// - Parameters:
    ///   - rules: Each pattern's pins.
    ///   - unpinnedHosts: What happens to a host that matches no pattern.
    public init(_ rules: KeyValuePairs<String, [String]> = [:], unpinnedHosts: UnpinnedHosts = .allowed) {
        self.rules = rules.map { Rule(pattern: $0.key.lowercased(), pins: $0.value) }
        self.unpinnedHosts = unpinnedHosts
    }

    /// No pins, every host allowed.
    public static let none = CertificatePinning()

    /// Whether any pin is set, or unpinned hosts are refused.
    @_spi(Transport) public var isEmpty: Bool {
        rules.allSatisfy(\.pins.isEmpty) && unpinnedHosts == .allowed
    }

    /// The pins of `host` — those of every pattern it matches, in order,
    /// without repeats — or `nil` when it matches none.
    /// - Parameter host: A host name or address, as the URL has it.
    /// - Returns: The pins, or `nil` when no pattern matches.
    @_spi(Transport) public func pins(for host: String) -> [String]? {
        let name = Self.normalized(host)
        var found: [String] = []
        var matched = false
        for rule in rules where Self.matches(rule.pattern, name) {
            matched = true
            for pin in rule.pins where !found.contains(pin) { found.append(pin) }
        }
        return matched ? found : nil
    }

    /// The first rule that is not a pattern and a list of `sha256//` pins, described.
    @_spi(Transport) public var problem: String? {
        for rule in rules {
            let labels = rule.pattern.split(separator: ".", omittingEmptySubsequences: false)
            let wildcard = labels.first == "*" || labels.first == "**"
            let rest = wildcard ? labels.dropFirst() : labels[...]
            if rest.isEmpty || rest.contains(where: { $0.isEmpty || $0.contains("*") }) {
                return "\"\(rule.pattern)\" is not a host, *.host or **.host pattern"
            }
            if rule.pins.isEmpty { return "\"\(rule.pattern)\" has no pins" }
            if let pin = rule.pins.first(where: { !Self.isPin($0) }) {
                return "\"\(pin)\" (for \(rule.pattern)) is not sha256// and the base64 of 32 bytes"
            }
        }
        return nil
    }

    static func normalized(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    static func matches(_ pattern: String, _ host: String) -> Bool {
        if pattern.hasPrefix("**.") {
            let suffix = String(pattern.dropFirst(3))
            return host == suffix || host.hasSuffix("." + suffix)
        }
        if pattern.hasPrefix("*.") {
            let suffix = String(pattern.dropFirst(2))
            guard host.hasSuffix("." + suffix) else { return false }
            let label = host.dropLast(suffix.count + 1)
            return !label.isEmpty && !label.contains(".")
        }
        return pattern == host
    }

    /// `sha256//` and 44 characters of base64 (32 bytes).
    static func isPin(_ pin: String) -> Bool {
        guard pin.hasPrefix("sha256//") else { return false }
        let encoded = pin.dropFirst(8)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        return encoded.count == 44 && encoded.hasSuffix("=")
            && encoded.dropLast().allSatisfy(alphabet.contains)
    }
}
