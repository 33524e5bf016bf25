/// Header names compare without regard to ASCII case (RFC 9110 §5.1).
enum HeaderName {
    /// Whether two names are the same field, compared byte by byte with ASCII
    /// letters folded: no lowercased copies, as every request's lookups
    /// would otherwise allocate.
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                guard left.count == right.count else { return false }
                for index in left.indices where fold(left[index]) != fold(right[index]) { return false }
                return true
            }
        }
    }

    private static func fold(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
