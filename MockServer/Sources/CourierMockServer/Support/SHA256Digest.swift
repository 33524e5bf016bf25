import CLibCrypto

/// SHA-256 over the system's OpenSSL libcrypto: the digests the mock server
/// reports for uploads and multipart parts, and that tests compare them with.
///
/// ```swift
/// let hex = SHA256Digest.hex(of: bytes)
/// var digest = SHA256Digest()
/// digest.update(chunk)          // as many times as needed
/// let streamed = digest.finalizeHex()
/// ```
public struct SHA256Digest: ~Copyable {
    private let context: OpaquePointer?

    /// Starts a digest.
    public init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let context = self.context
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            _ = EVP_DigestUpdate(context, buffer.baseAddress, buffer.count)
        }
        if done == nil {
            Array(bytes).withUnsafeBytes { buffer in
                _ = EVP_DigestUpdate(context, buffer.baseAddress, buffer.count)
            }
        }
    }

    /// The 32-byte digest of everything added.
    public consuming func finalize() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        return Array(output.prefix(Int(length)))
    }

    /// The digest as lower-case hex.
    public consuming func finalizeHex() -> String {
        Self.hexString(finalize())
    }

    /// The lower-case hex SHA-256 of `bytes`.
    public static func hex(of bytes: some Sequence<UInt8>) -> String {
        var digest = SHA256Digest()
        digest.update(bytes)
        return digest.finalizeHex()
    }

    /// The raw SHA-256 of `bytes`.
    public static func digest(of bytes: some Sequence<UInt8>) -> [UInt8] {
        var digest = SHA256Digest()
        digest.update(bytes)
        return digest.finalize()
    }

    private static func hexString(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
