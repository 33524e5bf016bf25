#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address as its bytes (4 or 16), read by the C library's
/// `inet_pton`: what a no-proxy entry and a request's host compare as.
struct IPAddress: Hashable, Sendable {
    let bytes: [UInt8]

    /// The address `text` spells (an IPv6 one with or without brackets);
    /// `nil` for a host name or anything else.
    init?(_ text: some StringProtocol) {
        var literal = String(text)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        if literal.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, literal, &address) == 1 else { return nil }
            bytes = withUnsafeBytes(of: &address) { Array($0) }
        } else {
            // inet_pton's IPv4 form: four decimal parts, nothing shorter.
            var address = in_addr()
            guard inet_pton(AF_INET, literal, &address) == 1 else { return nil }
            bytes = withUnsafeBytes(of: &address) { Array($0) }
        }
    }

    /// Whether `other` has the same first `prefixLength` bits (same family).
    func shares(prefixLength: Int, with other: IPAddress) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        var remaining = min(prefixLength, bytes.count * 8)
        for (mine, theirs) in zip(bytes, other.bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            guard mine & mask == theirs & mask else { return false }
            remaining -= bits
        }
        return true
    }
}
