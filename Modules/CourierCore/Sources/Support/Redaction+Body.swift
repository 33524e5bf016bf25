extension Redaction {
    /// A body as text for a log line or a curl command: JSON and form bodies
    /// with hidden fields masked — before anything is cut, so a value is
    /// never shown half — then at most `limit` bytes; other text as it is,
    /// within the limit; binary bodies described, not shown.
    public func body(_ bytes: [UInt8], contentType: String?, limit: Int) -> String {
        if bytes.isEmpty { return "" }
        let type = (contentType ?? "").lowercased()
        let text: String
        if type.contains("json") || (type.isEmpty && Self.looksLikeJSON(bytes)) {
            text = String(decoding: json(bytes), as: UTF8.self)
        } else if type.contains("x-www-form-urlencoded") {
            text = pairs(
                Substring(String(decoding: bytes, as: UTF8.self)), hidden: hiddenBody.union(hiddenQuery))
        } else if type.hasPrefix("multipart/") {
            return
                "<\(type.split(separator: ";").first ?? "multipart") body, \(bytes.count) bytes, not shown>"
        } else if let decoded = String(validating: bytes, as: UTF8.self), Self.isText(decoded) {
            text = decoded
        } else {
            return "<\(bytes.count) bytes\(type.isEmpty ? "" : " of \(type)"), not shown>"
        }
        return Self.bounded(text, to: limit)
    }

    /// The body with the values of hidden fields masked when it is JSON or a
    /// form, byte for byte as it came otherwise: what an error's body
    /// excerpt starts from (``CourierError/bodySnippet``).
    package func masked(_ bytes: [UInt8], contentType: String?) -> [UInt8] {
        let type = (contentType ?? "").lowercased()
        if type.contains("json") || (type.isEmpty && Self.looksLikeJSON(bytes)) { return json(bytes) }
        if type.contains("x-www-form-urlencoded") {
            return Array(
                pairs(
                    Substring(String(decoding: bytes, as: UTF8.self)),
                    hidden: hiddenBody.union(hiddenQuery)
                )
                .utf8)
        }
        return bytes
    }

    /// JSON with the values of hidden fields, at any depth, replaced by the
    /// mask as a string. A scanner, not a parser: it works on truncated or
    /// malformed JSON too, and keeps everything else byte for byte.
    package func json(_ input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        let masked = Array("\"\(mask)\"".utf8)
        var index = 0
        while index < input.count {
            guard input[index] == UInt8(ascii: "\"") else {
                out.append(input[index])
                index += 1
                continue
            }
            let end = Self.stringEnd(input, from: index)
            out += input[index..<end]
            let colon = Self.skipBlanks(input, from: end)
            guard colon < input.count, input[colon] == UInt8(ascii: ":"),
                hiddenBody.contains(Self.normalized(Self.decodeString(input[index..<end])))
            else {
                index = end
                continue
            }
            let value = Self.skipBlanks(input, from: colon + 1)
            out += input[end..<value]
            out += masked
            index = Self.valueEnd(input, from: value)
        }
        return out
    }

    // MARK: - Scanning

    private static func looksLikeJSON(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { !isBlank($0) }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func skipBlanks(_ input: [UInt8], from start: Int) -> Int {
        var index = start
        while index < input.count, isBlank(input[index]) { index += 1 }
        return index
    }

    /// The index after the string that starts (with its quote) at `start`;
    /// the end of the input for an unterminated one.
    private static func stringEnd(_ input: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < input.count {
            switch input[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return input.count
    }

    /// The index after the value that starts at `start`: a string, a nested
    /// object or array (balanced, strings skipped), or a scalar.
    private static func valueEnd(_ input: [UInt8], from start: Int) -> Int {
        guard start < input.count else { return start }
        switch input[start] {
        case UInt8(ascii: "\""):
            return stringEnd(input, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < input.count {
                switch input[index] {
                case UInt8(ascii: "\""):
                    index = stringEnd(input, from: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return input.count
        default:
            var index = start
            while index < input.count {
                let byte = input[index]
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                    || isBlank(byte)
                {
                    break
                }
                index += 1
            }
            return index
        }
    }

    /// A JSON string's content (without its quotes) with escapes resolved,
    /// so that `"pass\u0077ord"` is `password`.
    private static func decodeString(_ quoted: ArraySlice<UInt8>) -> String {
        var bytes = Array(quoted.dropFirst())
        if bytes.last == UInt8(ascii: "\"") { bytes.removeLast() }
        guard bytes.contains(UInt8(ascii: "\\")) else { return String(decoding: bytes, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var index = 0
        let text = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        while index < text.count {
            let scalar = text[index]
            guard scalar == "\\", index + 1 < text.count else {
                scalars.append(scalar)
                index += 1
                continue
            }
            let next = text[index + 1]
            index += 2
            switch next {
            case "n": scalars.append("\n")
            case "t": scalars.append("\t")
            case "r": scalars.append("\r")
            case "b": scalars.append("\u{8}")
            case "f": scalars.append("\u{c}")
            case "u" where index + 4 <= text.count:
                let hex = String(String.UnicodeScalarView(text[index..<index + 4]))
                if let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) {
                    scalars.append(decoded)
                }
                index += 4
            default: scalars.append(next)
            }
        }
        return String(scalars)
    }

    private static func isText(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value >= 0x20 || $0 == "\n" || $0 == "\r" || $0 == "\t" }
    }

    /// `text` cut to at most `limit` bytes on a character boundary, saying how much was left out.
    static func bounded(_ text: String, to limit: Int) -> String {
        let count = text.utf8.count
        guard count > limit else { return text }
        var end = text.startIndex
        var used = 0
        for index in text.indices {
            let size = text[index].utf8.count
            if used + size > limit { break }
            used += size
            end = text.index(after: index)
        }
        return text[..<end] + "… (\(count) bytes)"
    }
}
