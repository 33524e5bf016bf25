import CourierCache
import Foundation

/// How a ``CacheEntry`` is kept in one Redis value: a versioned header, the
/// fields as the disk store writes them, the body, and a checksum over it
/// all, so that a value written by another program, cut short or changed is
/// recognised and treated as a miss.
///
/// `"CRE1" status:u16 storedAt:f64 hasExpiry:u8 expiresAt:f64
///  fields:(u32 length, bytes) vary:(u32 length, bytes) body:(u32 length, bytes) check:u64`,
/// big-endian.
enum RedisEntryCoding {
    private static let magic = Array("CRE1".utf8)

    static func encode(_ entry: CacheEntry) -> [UInt8] {
        let fields = EntryCoding.encode(entry.headerFields)
        let vary = EntryCoding.encode(entry.variantFields)
        var out: [UInt8] = []
        out.reserveCapacity(40 + fields.count + vary.count + entry.body.count)
        out += magic
        append(UInt64(entry.status), bytes: 2, to: &out)
        append(entry.storedAt.timeIntervalSince1970.bitPattern, bytes: 8, to: &out)
        out.append(entry.expiresAt == nil ? 0 : 1)
        append((entry.expiresAt?.timeIntervalSince1970 ?? 0).bitPattern, bytes: 8, to: &out)
        for chunk in [fields, vary, entry.body] {
            append(UInt64(chunk.count), bytes: 4, to: &out)
            out += chunk
        }
        append(UInt64(bitPattern: EntryCoding.checksum(out)), bytes: 8, to: &out)
        return out
    }

    /// The entry `encode` wrote, or `nil` for anything else.
    static func decode(_ bytes: [UInt8]) -> CacheEntry? {
        guard bytes.count >= 8, bytes.starts(with: magic) else { return nil }
        let content = Array(bytes.dropLast(8))
        var check = Reader(bytes: Array(bytes.suffix(8)))
        guard check.integer(8) == UInt64(bitPattern: EntryCoding.checksum(content)) else { return nil }
        var reader = Reader(bytes: content, offset: magic.count)
        guard let status = reader.integer(2), let storedAt = reader.integer(8),
            let hasExpiry = reader.integer(1), let expiresAt = reader.integer(8),
            let fieldBytes = reader.chunk(), let fields = EntryCoding.decodeFields(fieldBytes),
            let varyBytes = reader.chunk(), let vary = EntryCoding.decodeFields(varyBytes),
            let body = reader.chunk(), reader.isAtEnd
        else { return nil }
        return CacheEntry(
            status: Int(status), headerFields: fields, body: body,
            storedAt: Date(timeIntervalSince1970: Double(bitPattern: storedAt)),
            expiresAt: hasExpiry == 1 ? Date(timeIntervalSince1970: Double(bitPattern: expiresAt)) : nil,
            variantFields: vary)
    }

    private static func append(_ value: UInt64, bytes count: Int, to out: inout [UInt8]) {
        for index in (0..<count).reversed() { out.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func integer(_ count: Int) -> UInt64? {
            guard bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return bytes[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
        }

        mutating func chunk() -> [UInt8]? {
            guard let length = integer(4).map(Int.init), bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return Array(bytes[offset..<offset + length])
        }
    }
}
