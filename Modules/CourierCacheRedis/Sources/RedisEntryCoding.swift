import CourierCache
import Foundation

/// How a ``CacheEntry`` is kept in one Redis value: a versioned header, the
/// fields as the disk store writes them, the body, and a checksum over it
/// all, so that a value written by another program, cut short or changed is
/// recognised and treated as a miss.
///
/// `"CRE2" status:u16 storedAt:f64 hasExpiry:u8 expiresAt:f64
///  fields:(u32 length, bytes) vary:(u32 length, bytes) body:(u32 length, bytes)
///  tags:(u32 length, bytes) check:u64`, big-endian. A `"CRE1"` value (no
/// tags) still reads.
enum RedisEntryCoding {
    private static let magic = Array("CRE2".utf8)
    private static let untaggedMagic = Array("CRE1".utf8)

    static func encode(_ entry: CacheEntry) -> [UInt8] {
        let fields = EntryCoding.encode(entry.headerFields)
        let vary = EntryCoding.encode(entry.variantFields)
        var out: [UInt8] = []
        out.reserveCapacity(40 + fields.count + vary.count + entry.body.count)
        out += magic
        EntryCoding.append(UInt64(entry.status), bytes: 2, to: &out)
        EntryCoding.append(entry.storedAt.timeIntervalSince1970.bitPattern, bytes: 8, to: &out)
        out.append(entry.expiresAt == nil ? 0 : 1)
        EntryCoding.append((entry.expiresAt?.timeIntervalSince1970 ?? 0).bitPattern, bytes: 8, to: &out)
        for chunk in [fields, vary, entry.body, EntryCoding.encode(entry.tags)] {
            EntryCoding.append(UInt64(chunk.count), bytes: 4, to: &out)
            out += chunk
        }
        EntryCoding.append(UInt64(bitPattern: EntryCoding.checksum(out)), bytes: 8, to: &out)
        return out
    }

    /// The entry `encode` wrote, or `nil` for anything else.
    static func decode(_ bytes: [UInt8]) -> CacheEntry? {
        let tagged = bytes.starts(with: magic)
        guard bytes.count >= 8, tagged || bytes.starts(with: untaggedMagic) else { return nil }
        let content = Array(bytes.dropLast(8))
        var check = EntryCoding.Reader(bytes: Array(bytes.suffix(8)))
        guard check.integer(8) == UInt64(bitPattern: EntryCoding.checksum(content)) else { return nil }
        var reader = EntryCoding.Reader(bytes: content, offset: magic.count)
        guard let status = reader.integer(2), let storedAt = reader.integer(8),
            let hasExpiry = reader.integer(1), let expiresAt = reader.integer(8),
            let fieldBytes = reader.chunk(), let fields = EntryCoding.decodeFields(Array(fieldBytes)),
            let varyBytes = reader.chunk(), let vary = EntryCoding.decodeFields(Array(varyBytes)),
            let body = reader.chunk(), let tagBytes = tagged ? reader.chunk() : [],
            let tags = EntryCoding.decodeTags(tagBytes), reader.isAtEnd
        else { return nil }
        return CacheEntry(
            status: Int(status), headerFields: fields, body: Array(body),
            storedAt: Date(timeIntervalSince1970: Double(bitPattern: storedAt)),
            expiresAt: hasExpiry == 1 ? Date(timeIntervalSince1970: Double(bitPattern: expiresAt)) : nil,
            variantFields: vary, tags: tags)
    }
}
