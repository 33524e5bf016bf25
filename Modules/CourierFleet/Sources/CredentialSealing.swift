#if canImport(CryptoKit)
    import CryptoKit
    import Foundation
#else
    import CCrypto
#endif

/// A key a fleet seals its shared credential with: 32 bytes the app gives
/// (from its secret store), the same on every instance. Redis then holds
/// only AES-256-GCM ciphertext, bound to the key it is stored under, so a
/// reader of Redis without the key learns nothing and cannot move a sealed
/// credential to another scope or fleet.
public struct CredentialSealingKey: Sendable {
    let bytes: [UInt8]

    /// The key from exactly 32 bytes; `nil` for any other length (AES-256
    /// has no other key size, and a shorter secret must not be stretched
    /// silently).
    public init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        self.bytes = Array(bytes)
    }
}

/// AES-256-GCM over a credential's bytes: a random 96-bit nonce per seal,
/// the Redis key as associated data; the sealed form is nonce ‖ ciphertext ‖
/// 128-bit tag. OpenSSL's libcrypto on Linux, CryptoKit on Apple platforms.
enum CredentialSealing {
    static let nonceSize = 12
    static let tagSize = 16

    /// `plaintext` sealed under `key`, bound to `context`; `nil` only when
    /// the platform's cipher fails (then nothing is stored).
    static func seal(_ plaintext: [UInt8], key: CredentialSealingKey, context: [UInt8]) -> [UInt8]? {
        #if canImport(CryptoKit)
            let box = try? AES.GCM.seal(
                plaintext, using: SymmetricKey(data: key.bytes), authenticating: context)
            return box?.combined.map { Array($0) }
        #else
            var nonce = [UInt8](repeating: 0, count: nonceSize)
            guard RAND_bytes(&nonce, Int32(nonceSize)) == 1 else { return nil }
            guard let sealed = gcm(encrypt: true, plaintext, key: key, nonce: nonce, context: context)
            else { return nil }
            return nonce + sealed
        #endif
    }

    /// The plaintext of `sealed`, or `nil` when it was not sealed under
    /// `key` and `context` (another key, another scope, or altered bytes).
    static func open(_ sealed: [UInt8], key: CredentialSealingKey, context: [UInt8]) -> [UInt8]? {
        guard sealed.count >= nonceSize + tagSize else { return nil }
        #if canImport(CryptoKit)
            guard let box = try? AES.GCM.SealedBox(combined: sealed),
                let opened = try? AES.GCM.open(
                    box, using: SymmetricKey(data: key.bytes), authenticating: context)
            else { return nil }
            return Array(opened)
        #else
            return gcm(
                encrypt: false, Array(sealed[nonceSize...]), key: key, nonce: Array(sealed[..<nonceSize]),
                context: context)
        #endif
    }

    #if !canImport(CryptoKit)
        /// One AES-256-GCM pass through OpenSSL's EVP interface. Encrypting,
        /// returns ciphertext ‖ tag; decrypting, takes ciphertext ‖ tag and
        /// returns the plaintext, or `nil` when the tag does not verify.
        private static func gcm(
            encrypt: Bool, _ input: [UInt8], key: CredentialSealingKey, nonce: [UInt8], context: [UInt8]
        ) -> [UInt8]? {
            guard let cipher = EVP_CIPHER_CTX_new() else { return nil }
            defer { EVP_CIPHER_CTX_free(cipher) }
            let body = encrypt ? input : Array(input.dropLast(tagSize))
            var tag = encrypt ? [UInt8](repeating: 0, count: tagSize) : Array(input.suffix(tagSize))
            let mode: Int32 = encrypt ? 1 : 0
            guard EVP_CipherInit_ex(cipher, EVP_aes_256_gcm(), nil, nil, nil, mode) == 1,
                EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceSize), nil) == 1,
                EVP_CipherInit_ex(cipher, nil, nil, key.bytes, nonce, mode) == 1
            else { return nil }
            var length: Int32 = 0
            if !context.isEmpty {
                guard EVP_CipherUpdate(cipher, nil, &length, context, Int32(context.count)) == 1 else {
                    return nil
                }
            }
            var output = [UInt8](repeating: 0, count: body.count + tagSize)
            var written: Int32 = 0
            if !body.isEmpty {
                guard EVP_CipherUpdate(cipher, &output, &written, body, Int32(body.count)) == 1 else {
                    return nil
                }
            }
            if !encrypt {
                guard EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &tag) == 1 else {
                    return nil
                }
            }
            var final: Int32 = 0
            let finished = output.withUnsafeMutableBufferPointer { buffer in
                EVP_CipherFinal_ex(cipher, buffer.baseAddress.map { $0 + Int(written) }, &final)
            }
            guard finished == 1 else { return nil }  // decrypting: the tag did not verify
            let produced = Int(written + final)
            if encrypt {
                guard EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), &tag) == 1 else {
                    return nil
                }
                return Array(output[..<produced]) + tag
            }
            return Array(output[..<produced])
        }
    #endif
}
