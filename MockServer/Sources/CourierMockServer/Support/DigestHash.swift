import CLibCrypto

/// The hashes HTTP Digest authentication names (RFC 7616 §3.3: `MD5`,
/// `SHA-256`), over the system's OpenSSL libcrypto: the mock server checks
/// a client's Digest answers with an implementation that is not the client's.
enum DigestHash {
    /// The lowercase hexadecimal digest of `bytes` with `algorithm` (`MD5` or
    /// `SHA-256`, a `-sess` suffix ignored, without case); `nil` for any other name.
    static func hex(_ algorithm: String, _ bytes: [UInt8]) -> String? {
        let name = algorithm.lowercased()
        let kind: OpaquePointer?
        if name == "md5" || name == "md5-sess" {
            kind = EVP_md5()
        } else if name == "sha-256" || name == "sha-256-sess" {
            kind = EVP_sha256()
        } else {
            return nil
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, kind, nil)
        }
        guard done == 1 else { return nil }
        return output.prefix(Int(length)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The digest of `text`'s UTF-8.
    static func hex(_ algorithm: String, _ text: String) -> String? {
        hex(algorithm, Array(text.utf8))
    }
}
