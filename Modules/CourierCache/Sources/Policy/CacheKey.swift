import CourierCore

/// The name a stored response is kept under: the SHA-256 of the request's
/// canonical form (``CacheKeyRule`` says what goes into it), never the
/// request itself — a store holds no URL, query or credential.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// 64 lowercase hexadecimal digits.
    public let digest: String

    /// A key with a digest you computed (a store's tests, a key read back).
    public init(digest: String) {
        self.digest = digest
    }

    /// The key of a canonical form: its components, one per line, hashed.
    init(components: [String]) {
        self.digest = SHA256.hex(Array(components.joined(separator: "\n").utf8))
    }

    /// The digest.
    public var description: String { digest }
}
