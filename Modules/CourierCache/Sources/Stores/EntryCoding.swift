package import HTTPTypes

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

    /// Tags as their digests one after another, 64 bytes each, sorted (so
    /// that an entry encodes the same way every time).
    package static func encode(_ tags: Set<CacheTag>) -> [UInt8] {
        Array(tags.map(\.digest).sorted().joined().utf8)
    }

    /// The tags `encode` wrote, or `nil` for anything else.
    package static func decodeTags(_ bytes: some Collection<UInt8>) -> Set<CacheTag>? {
        guard bytes.count % 64 == 0 else { return nil }
        var tags = Set<CacheTag>()
        var rest = bytes[...]
        while !rest.isEmpty {
            guard let tag = CacheTag(digest: String(decoding: rest.prefix(64), as: UTF8.self)) else {
                return nil
            }
            tags.insert(tag)
            rest = rest.dropFirst(64)
        }
        return tags
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

    /// Appends the low `count` bytes of `value`, big-endian.
    package static func append(_ value: UInt64, bytes count: Int, to out: inout [UInt8]) {
        for index in (0..<count).reversed() { out.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    private static func append(_ value: UInt32, to out: inout [UInt8]) {
        append(UInt64(value), bytes: 4, to: &out)
    }

    /// Reads what `append` and `encode` wrote, failing (`nil`) at a short read.
    package struct Reader {
        private let bytes: [UInt8]
        private var offset: Int

        package init(bytes: [UInt8], offset: Int = 0) {
            self.bytes = bytes
            self.offset = offset
        }

        package var isAtEnd: Bool { offset == bytes.count }

        /// A `count`-byte big-endian integer.
        package mutating func integer(_ count: Int) -> UInt64? {
            guard bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return bytes[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
        }

        mutating func uint32() -> UInt32? { integer(4).map(UInt32.init) }

        /// A chunk after its 4-byte length.
        package mutating func chunk() -> ArraySlice<UInt8>? {
            guard let length = integer(4).map(Int.init), bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return bytes[offset..<offset + length]
        }
    }
}
