extension StringProtocol {
    /// The text with `%XX` escapes (and, in a form, `+` for a space)
    /// decoded; `nil` for a broken escape or bytes that are not UTF-8. For
    /// comparing query and form names (a cache key's ignored parameters, a
    /// log's redacted ones) however a client wrote them.
    package func percentDecoded(plusIsSpace: Bool = false) -> String? {
        guard contains("%") || (plusIsSpace && contains("+")) else { return String(self) }
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
