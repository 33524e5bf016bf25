/// SHA-256 (FIPS 180-4), for request keys: a digest of a body or a
/// credential that is stable across processes (a disk or shared cache keys
/// on it) and reveals nothing of what it digests.
///
/// Written here rather than imported: the libraries' only dependency is
/// swift-http-types, and swift-crypto would bring BoringSSL to every app
/// that depends on Courier for one hash. Checked against the FIPS 180-4
/// examples and against other implementations (`SHA256Tests`).
package struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Bytes of an unfinished block (fewer than 64), kept between updates
    /// in place: hashing a short message allocates nothing.
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
        0, 0, 0, 0, 0, 0, 0, 0
    )
    private var pendingCount = 0
    private var length: UInt64 = 0

    /// An empty message.
    package init() {}

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4,
        0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7,
        0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc,
        0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351,
        0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e,
        0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585,
        0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f,
        0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7,
        0xc671_78f2,
    ]

    /// The digest of `bytes`, as 64 lowercase hexadecimal digits.
    package static func hex(_ bytes: some Collection<UInt8>) -> String {
        var hash = SHA256()
        hash.update(bytes)
        return RequestKey.hex(hash.finalize())
    }

    /// Adds bytes to the message. Whole blocks are compressed straight from
    /// the input; only a last partial block is copied.
    package mutating func update(_ bytes: some Collection<UInt8>) {
        length &+= UInt64(bytes.count)
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            absorb(UnsafeRawBufferPointer(buffer))
        }
        if done == nil { Array(bytes).withUnsafeBytes { absorb($0) } }
    }

    /// Adds the UTF-8 of `text`, without copying it first.
    package mutating func update(utf8 text: Substring) {
        var text = text
        text.withUTF8 { bytes in
            length &+= UInt64(bytes.count)
            absorb(UnsafeRawBufferPointer(bytes))
        }
    }

    /// Adds the UTF-8 of `text`, without copying it first.
    package mutating func update(utf8 text: String) {
        update(utf8: Substring(text))
    }

    /// Adds one byte.
    package mutating func update(byte: UInt8) {
        withUnsafeBytes(of: byte) { bytes in
            length &+= 1
            absorb(bytes)
        }
    }

    private mutating func absorb(_ input: UnsafeRawBufferPointer) {
        var offset = 0
        if pendingCount > 0 {
            let taken = min(64 - pendingCount, input.count)
            let start = pendingCount
            withUnsafeMutableBytes(of: &pending) { buffer in
                for index in 0..<taken { buffer[start + index] = input[index] }
            }
            pendingCount += taken
            offset = taken
            guard pendingCount == 64 else { return }
            let block = pending
            withUnsafeBytes(of: block) { compress($0) }
            pendingCount = 0
        }
        while input.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: input[offset..<offset + 64]))
            offset += 64
        }
        let rest = input.count - offset
        if rest > 0 {
            withUnsafeMutableBytes(of: &pending) { buffer in
                for index in 0..<rest { buffer[index] = input[offset + index] }
            }
            pendingCount = rest
        }
    }

    /// The 32-byte digest of everything added.
    package mutating func finalize() -> [UInt8] {
        let (first, second, third, fourth) = finalizeWords()
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [first, second, third, fourth] {
            for shift in stride(from: 56, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return digest
    }

    /// The digest as four 64-bit words, big-endian: a fixed-size key that
    /// hashes and compares without touching the heap.
    package mutating func finalizeWords() -> (UInt64, UInt64, UInt64, UInt64) {
        pad()
        func word(_ high: UInt32, _ low: UInt32) -> UInt64 { UInt64(high) << 32 | UInt64(low) }
        return (
            word(state.0, state.1), word(state.2, state.3), word(state.4, state.5), word(state.6, state.7)
        )
    }

    /// The padding — 0x80, zeros, the length in bits — in one or two blocks.
    private mutating func pad() {
        let bits = length &* 8
        let count = pendingCount
        let block = pending
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
            tail.initialize(repeating: 0)
            withUnsafeBytes(of: block) { bytes in
                for index in 0..<count { tail[index] = bytes[index] }
            }
            tail[count] = 0x80
            let total = count < 56 ? 64 : 128
            for byte in 0..<8 { tail[total - 1 - byte] = UInt8(truncatingIfNeeded: bits >> UInt64(8 * byte)) }
            let raw = UnsafeRawBufferPointer(tail)
            compress(UnsafeRawBufferPointer(rebasing: raw[0..<64]))
            if total == 128 { compress(UnsafeRawBufferPointer(rebasing: raw[64..<128])) }
        }
        pendingCount = 0
    }

    /// One 64-byte block; the message schedule lives on the stack.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for index in 0..<16 {
                let at = index * 4
                w[index] =
                    UInt32(block[at]) << 24 | UInt32(block[at + 1]) << 16 | UInt32(block[at + 2]) << 8
                    | UInt32(block[at + 3])
            }
            for index in 16..<64 {
                let s0 = rotate(w[index - 15], 7) ^ rotate(w[index - 15], 18) ^ (w[index - 15] >> 3)
                let s1 = rotate(w[index - 2], 17) ^ rotate(w[index - 2], 19) ^ (w[index - 2] >> 10)
                w[index] = w[index - 16] &+ s0 &+ w[index - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.k.withUnsafeBufferPointer { k in
                for index in 0..<64 {
                    let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[index] &+ w[index]
                    let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            state = (
                state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f,
                state.6 &+ g, state.7 &+ h
            )
        }
    }

    private func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value >> count | value << (32 - count) }
}
