#if canImport(CryptoKit)
    import CryptoKit
#else
    import CCrypto
#endif

/// SHA-256 (FIPS 180-4), for request keys: a digest of a body or a
/// credential that is stable across processes (a disk or shared cache keys
/// on it) and reveals nothing of what it digests. Computed by the platform's
/// cryptography, not here: OpenSSL's libcrypto on Linux (the TLS library of
/// Debian's libcurl), CryptoKit on Apple platforms.
package struct SHA256 {
    private var state = DigestState(.sha256)

    /// An empty message.
    package init() {}

    /// The digest of `bytes`, as 64 lowercase hexadecimal digits.
    package static func hex(_ bytes: some Collection<UInt8>) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return RequestKey.hex(hash.finalize())
    }

    /// Adds bytes to the message.
    package mutating func update(_ bytes: some Collection<UInt8>) { state.update(bytes) }

    /// Adds the UTF-8 of `text`, without copying it first when it is contiguous.
    package mutating func update(utf8 text: Substring) { state.update(text.utf8) }

    /// Adds the UTF-8 of `text`.
    package mutating func update(utf8 text: String) { state.update(text.utf8) }

    /// Adds one byte.
    package mutating func update(byte: UInt8) { state.update(CollectionOfOne(byte)) }

    /// The 32-byte digest of everything added.
    package mutating func finalize() -> [UInt8] { state.finalize() }

    /// The digest as four 64-bit words, big-endian: a fixed-size key that
    /// hashes and compares without touching the heap.
    package mutating func finalizeWords() -> (UInt64, UInt64, UInt64, UInt64) {
        let digest = finalize()
        func word(_ index: Int) -> UInt64 {
            digest[index..<index + 8].reduce(0) { $0 << 8 | UInt64($1) }
        }
        return (word(0), word(8), word(16), word(24))
    }
}

/// MD5 (RFC 1321), for HTTP Digest authentication only (RFC 7616 keeps it
/// for servers that know no better): never for anything that must resist
/// collisions. From the platform's cryptography, as ``SHA256``.
package struct MD5 {
    private var state = DigestState(.md5)

    /// An empty message.
    package init() {}

    /// The digest of `bytes`, as 32 lowercase hexadecimal digits.
    package static func hex(_ bytes: some Collection<UInt8>) -> String {
        var hash = MD5()
        hash.update(bytes)
        return RequestKey.hex(hash.finalize())
    }

    /// Adds bytes to the message.
    package mutating func update(_ bytes: some Collection<UInt8>) { state.update(bytes) }

    /// The 16-byte digest of everything added.
    package mutating func finalize() -> [UInt8] { state.finalize() }
}

/// The platform's running digest, with value semantics: a copy of a
/// ``SHA256`` or ``MD5`` goes on from where the original was, on its own.
private struct DigestState {
    enum Algorithm { case sha256, md5 }

    #if canImport(CryptoKit)
        private enum Running {
            case sha256(CryptoKit.SHA256)
            case md5(Insecure.MD5)
        }
        private var running: Running

        init(_ algorithm: Algorithm) {
            running = algorithm == .sha256 ? .sha256(CryptoKit.SHA256()) : .md5(Insecure.MD5())
        }

        mutating func update(_ bytes: some Collection<UInt8>) {
            let done: Void? = bytes.withContiguousStorageIfAvailable { feed(UnsafeRawBufferPointer($0)) }
            if done == nil { Array(bytes).withUnsafeBytes { feed($0) } }
        }

        private mutating func feed(_ buffer: UnsafeRawBufferPointer) {
            switch running {
            case .sha256(var hash):
                hash.update(bufferPointer: buffer)
                running = .sha256(hash)
            case .md5(var hash):
                hash.update(bufferPointer: buffer)
                running = .md5(hash)
            }
        }

        mutating func finalize() -> [UInt8] {
            switch running {
            case .sha256(let hash): Array(hash.finalize())
            case .md5(let hash): Array(hash.finalize())
            }
        }
    #else
        private var context: EVPContext

        init(_ algorithm: Algorithm) {
            context = EVPContext(algorithm == .sha256 ? EVPDigests.sha256 : EVPDigests.md5)
        }

        mutating func update(_ bytes: some Collection<UInt8>) {
            if !isKnownUniquelyReferenced(&context) { context = EVPContext(copying: context) }
            let done: Void? = bytes.withContiguousStorageIfAvailable {
                context.update(UnsafeRawBufferPointer($0))
            }
            if done == nil { Array(bytes).withUnsafeBytes { context.update($0) } }
        }

        mutating func finalize() -> [UInt8] {
            if !isKnownUniquelyReferenced(&context) { context = EVPContext(copying: context) }
            return context.finalize()
        }
    #endif
}

#if !canImport(CryptoKit)
    /// The algorithms, fetched from OpenSSL's default provider once.
    ///
    /// `@unchecked Sendable` is safe: an `EVP_MD` is immutable once fetched,
    /// and OpenSSL documents fetched algorithms as shareable between threads;
    /// these are fetched once, never freed, and only read.
    private struct EVPDigests: @unchecked Sendable {
        let algorithm: OpaquePointer?

        static let sha256 = EVPDigests(algorithm: EVP_MD_fetch(nil, "SHA256", nil))
        static let md5 = EVPDigests(algorithm: EVP_MD_fetch(nil, "MD5", nil))
    }

    /// One `EVP_MD_CTX`, freed with the object. Used by one ``DigestState``
    /// at a time (copied before a shared one is written), never across threads.
    private final class EVPContext {
        private let context: OpaquePointer

        init(_ digest: EVPDigests) {
            guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, digest.algorithm, nil) == 1
            else {
                preconditionFailure(
                    "OpenSSL could not start a digest (out of memory, or no default provider)")
            }
            self.context = context
        }

        init(copying other: EVPContext) {
            guard let context = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(context, other.context) == 1 else {
                preconditionFailure("OpenSSL could not copy a digest (out of memory)")
            }
            self.context = context
        }

        deinit { EVP_MD_CTX_free(context) }

        func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            EVP_DigestUpdate(context, base, bytes.count)
        }

        func finalize() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            _ = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
            digest.removeSubrange(Int(length)...)
            return digest
        }
    }
#endif
