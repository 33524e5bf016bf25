import Testing

@testable import CourierCore

/// SHA-256 against the FIPS 180-4 examples and digests computed elsewhere
/// (Python's hashlib), across block boundaries and incremental updates.
struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            String(repeating: "a", count: 55),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"
        ),
        (
            String(repeating: "a", count: 56),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"
        ),
        (
            String(repeating: "a", count: 64),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"
        ),
    ])
    func knownDigests(message: String, digest: String) {
        #expect(SHA256.hex(Array(message.utf8)) == digest)
    }

    @Test func aMillionAsInUnevenPieces() {
        var hash = SHA256()
        var left = 1_000_000
        var piece = 1
        while left > 0 {
            let size = min(piece, left)
            hash.update([UInt8](repeating: 0x61, count: size))
            left -= size
            piece = piece * 3 % 1000 + 1
        }
        let hex = hash.finalize().map {
            String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
        }.joined()
        #expect(hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// A copy goes on from where the original was, on its own (the
    /// platform's digest context is copied, not shared).
    @Test func aCopyDigestsOnItsOwn() {
        var first = SHA256()
        first.update(Array("ab".utf8))
        var second = first
        first.update(Array("c".utf8))
        second.update(Array("d".utf8))
        #expect(RequestKey.hex(first.finalize()) == SHA256.hex(Array("abc".utf8)))
        #expect(RequestKey.hex(second.finalize()) == SHA256.hex(Array("abd".utf8)))
    }
}
