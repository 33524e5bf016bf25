import CourierCore

/// The name a stored response is kept under: the SHA-256 of the request's
/// canonical form (``CacheKeyRule`` says what goes into it), never the
/// request itself — a store holds no URL, query or credential.
///
/// Kept as the digest's 32 bytes, so that the memory tier hashes and
/// compares keys without touching the heap; ``digest`` spells it out for
/// stores that want text.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    private let first: UInt64
    private let second: UInt64
    private let third: UInt64
    private let fourth: UInt64

    /// The key of `name`: its SHA-256 (for a store's own tests and tools).
    public init(hashing name: String) {
        var hash = SHA256()
        hash.update(name.utf8)
        self.init(&hash)
    }

    /// The key whose ``digest`` is `digest`, 64 hexadecimal digits (a key a
    /// store read back); `nil` for anything else.
    public init?(digest: String) {
        let bytes = Array(digest.utf8)
        guard bytes.count == 64 else { return nil }
        var words: [UInt64] = []
        for start in stride(from: 0, to: 64, by: 16) {
            guard let word = UInt64(String(decoding: bytes[start..<start + 16], as: UTF8.self), radix: 16)
            else {
                return nil
            }
            words.append(word)
        }
        (first, second, third, fourth) = (words[0], words[1], words[2], words[3])
    }

    /// The key a hash of the canonical form ends in.
    init(_ hash: inout SHA256) {
        (first, second, third, fourth) = hash.finalizeWords()
    }

    /// The digest: 64 lowercase hexadecimal digits.
    public var digest: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for word in [first, second, third, fourth] {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return RequestKey.hex(bytes)
    }

    /// The digest.
    public var description: String { digest }
}
