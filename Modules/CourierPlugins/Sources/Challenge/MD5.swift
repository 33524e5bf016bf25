import CourierCore

/// MD5 (RFC 1321), for HTTP Digest authentication only: RFC 7616 keeps
/// `MD5` and `MD5-sess` for servers that offer nothing stronger, and
/// ``ChallengeAuthenticator`` must answer them. It is broken as a
/// collision-resistant hash and is used for nothing else here.
///
/// Written here rather than imported, as CourierCore's SHA-256 is: the
/// libraries depend on no crypto package, and swift-crypto would bring
/// BoringSSL to every app for one legacy hash. Checked against RFC 1321's
/// test suite and RFC 2617's and RFC 7616's worked examples (`MD5Tests`).
package struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    /// Bytes of an unfinished block (fewer than 64).
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// An empty message.
    package init() {}

    /// The digest of `bytes`, as 32 lowercase hexadecimal digits.
    package static func hex(_ bytes: some Collection<UInt8>) -> String {
        var hash = MD5()
        hash.update(bytes)
        return RequestKey.hex(hash.finalize())
    }

    /// Adds bytes to the message.
    package mutating func update(_ bytes: some Collection<UInt8>) {
        length &+= UInt64(bytes.count)
        pending.append(contentsOf: bytes)
        guard pending.count >= 64 else { return }
        let whole = pending.count - pending.count % 64
        let buffered = pending  // read while `compress` changes the state
        buffered.withUnsafeBytes { buffer in
            for start in stride(from: 0, to: whole, by: 64) {
                compress(UnsafeRawBufferPointer(rebasing: buffer[start..<start + 64]))
            }
        }
        pending.removeFirst(whole)
    }

    /// The 16-byte digest of everything added.
    package mutating func finalize() -> [UInt8] {
        let bits = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for byte in 0..<8 { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(8 * byte))) }
        tail.withUnsafeBytes { buffer in
            for start in stride(from: 0, to: buffer.count, by: 64) {
                compress(UnsafeRawBufferPointer(rebasing: buffer[start..<start + 64]))
            }
        }
        pending = []
        var digest: [UInt8] = []
        digest.reserveCapacity(16)
        for word in [state.0, state.1, state.2, state.3] {
            for shift in stride(from: 0, through: 24, by: 8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    /// The sine table: `floor(abs(sin(i + 1)) × 2³²)`.
    private static let k: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee,
        0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be,
        0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa,
        0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed,
        0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c,
        0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05,
        0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039,
        0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1,
        0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]

    /// The per-round rotations, four per round.
    private static let shifts: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]

    /// One 64-byte block, read as sixteen little-endian words.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var words = [UInt32](repeating: 0, count: 16)
        for index in 0..<16 {
            let at = index * 4
            words[index] =
                UInt32(block[at]) | UInt32(block[at + 1]) << 8 | UInt32(block[at + 2]) << 16
                | UInt32(block[at + 3]) << 24
        }
        var (a, b, c, d) = state
        for index in 0..<64 {
            let round = index / 16
            let mixed: UInt32
            let word: Int
            switch round {
            case 0: (mixed, word) = ((b & c) | (~b & d), index)
            case 1: (mixed, word) = ((d & b) | (~d & c), (5 * index + 1) % 16)
            case 2: (mixed, word) = (b ^ c ^ d, (3 * index + 5) % 16)
            default: (mixed, word) = (c ^ (b | ~d), (7 * index) % 16)
            }
            let sum = a &+ mixed &+ Self.k[index] &+ words[word]
            let shift = Self.shifts[round * 4 + index % 4]
            (a, d, c) = (d, c, b)
            b = b &+ (sum << shift | sum >> (32 - shift))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
