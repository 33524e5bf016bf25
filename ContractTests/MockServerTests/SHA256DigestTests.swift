import CourierMockServer
import Testing

/// The mock server's SHA-256 (system libcrypto) against FIPS 180-2 test vectors.
struct SHA256DigestTests {
    @Test func knownVectors() {
        #expect(
            SHA256Digest.hex(of: [UInt8]())
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256Digest.hex(of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func streamingEqualsOneShot() {
        var digest = SHA256Digest()
        for _ in 0..<1000 { digest.update([UInt8](repeating: UInt8(ascii: "a"), count: 1000)) }
        #expect(digest.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SHA256Digest.digest(of: Array("abc".utf8)).count == 32)
    }
}
