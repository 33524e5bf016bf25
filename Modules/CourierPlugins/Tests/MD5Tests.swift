import CourierCore
import CourierTestSupport
import Testing

@testable import CourierPlugins

/// `MD5` against RFC 1321's test suite (§A.5) and the million-`a` vector.
struct MD5Tests {
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        (
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            "d174ab98d277d9f5a5611c2c9f419d9f"
        ),
        (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func rfc1321TestSuite(message: String, digest: String) {
        #expect(MD5.hex(Array(message.utf8)) == digest)
    }

    @Test func aMillionAsFedInUnevenPieces() {
        var hash = MD5()
        var fed = 0
        var piece = 1
        while fed < 1_000_000 {
            let count = min(piece, 1_000_000 - fed)
            hash.update([UInt8](repeating: UInt8(ascii: "a"), count: count))
            fed += count
            piece = piece % 127 + 1  // every length from 1 to 127, across block edges
        }
        #expect(RequestKey.hex(hash.finalize()) == "7707d6ae4e027c70eea2a935c2296f21")
    }

    @Test func piecesGiveTheDigestOfTheWhole() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for split in [0, 1, 55, 56, 63, 64, 65, 128, 299, 300] {
            var hash = MD5()
            hash.update(message[..<split])
            hash.update(message[split...])
            #expect(
                RequestKey.hex(hash.finalize()) == "04efd1e6a4e06e3794694154279db582", "split at \(split)")
        }
    }
}
