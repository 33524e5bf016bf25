import HTTPTypes

/// How the disk store writes header fields and checks bodies: a
/// length-prefixed list of names and values that reads back exactly or not
/// at all, and a 64-bit FNV-1a checksum that tells a damaged body from an
/// intact one (damage, not tampering: the cache directory is the user's own,
/// 0700).
package enum EntryCoding {
    /// `[count: u32] ([name length: u32] name [value length: u32] value)*`, big-endian.
    package static func encode(_ fields: HTTPFields) -> [UInt8] {
        var out: [UInt8] = []
        append(UInt32(fields.count), to: &out)
        for field in fields {
            let name = Array(field.name.rawName.utf8)
            let value = Array(field.value.utf8)
            append(UInt32(name.count), to: &out)
            out += name
            append(UInt32(value.count), to: &out)
            out += value
        }
        return out
    }

    /// The fields `encode` wrote, or `nil` for anything else: a short or
    /// long blob, an invalid name or value.
    package static func decodeFields(_ bytes: [UInt8]) -> HTTPFields? {
        var reader = Reader(bytes: bytes)
        guard let count = reader.uint32(), count <= 10_000 else { return nil }
        var fields = HTTPFields()
        for _ in 0..<count {
            guard let nameBytes = reader.chunk(), let valueBytes = reader.chunk(),
                let rawName = String(validating: nameBytes, as: UTF8.self),
                let name = HTTPField.Name(rawName),
                let value = String(validating: valueBytes, as: UTF8.self), HTTPField.isValidValue(value)
            else { return nil }
            fields.append(HTTPField(name: name, value: value))
        }
        return reader.isAtEnd ? fields : nil
    }

    /// FNV-1a, 64 bits, as a signed integer for SQLite.
    package static func checksum(_ bytes: [UInt8]) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBufferPointer { buffer in
            for byte in buffer {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        return Int64(bitPattern: hash)
    }

    private static func append(_ value: UInt32, to out: inout [UInt8]) {
        out += [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func uint32() -> UInt32? {
            guard bytes.count - offset >= 4 else { return nil }
            defer { offset += 4 }
            return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func chunk() -> ArraySlice<UInt8>? {
            guard let length = uint32().map(Int.init), bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return bytes[offset..<offset + length]
        }
    }
}
