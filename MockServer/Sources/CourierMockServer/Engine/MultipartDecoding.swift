/// Splits a `multipart/form-data` body into its parts, for `/anything`'s echo.
enum MultipartDecoding {
    struct Part {
        var name: String
        var filename: String?
        var contentType: String?
        var content: ArraySlice<UInt8>
    }

    /// The boundary parameter of a `multipart/form-data` content type.
    static func boundary(_ contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmed.lowercased() == "boundary" else { continue }
            let value = pair[1].trimmed
            return value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
                ? String(value.dropFirst().dropLast()) : value
        }
        return nil
    }

    /// The parts, or `nil` when the body does not follow the framing.
    static func parts(_ body: [UInt8], boundary: String) -> [Part]? {
        let delimiter = Array("--\(boundary)".utf8)
        guard var start = find(delimiter, in: body[...]) else { return nil }
        var parts: [Part] = []
        while true {
            let afterDelimiter = start + delimiter.count
            if body[afterDelimiter...].starts(with: Array("--".utf8)) { return parts }
            guard body[afterDelimiter...].starts(with: Array("\r\n".utf8)),
                let headEnd = find(Array("\r\n\r\n".utf8), in: body[(afterDelimiter + 2)...]),
                let next = find(Array("\r\n".utf8) + delimiter, in: body[(headEnd + 4)...])
            else { return nil }
            let head = String(decoding: body[(afterDelimiter + 2)..<headEnd], as: UTF8.self)
            guard var part = parseHead(head) else { return nil }
            part.content = body[(headEnd + 4)..<next]
            parts.append(part)
            start = next + 2
        }
    }

    /// The echo of one part: a field's text, or a file's name, type, size and SHA-256.
    static func echo(_ part: Part) -> JSONValue {
        guard let filename = part.filename else {
            return .string(String(decoding: part.content, as: UTF8.self))
        }
        return .object([
            "filename": .string(filename), "contentType": part.contentType.map(JSONValue.string) ?? .null,
            "size": .int(Int64(part.content.count)), "sha256": .string(SHA256Digest.hex(of: part.content)),
        ])
    }

    private static func parseHead(_ head: String) -> Part? {
        var part = Part(name: "", content: [])
        var named = false
        for line in head.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { return nil }
            switch pair[0].trimmed.lowercased() {
            case "content-disposition":
                for parameter in pair[1].split(separator: ";").dropFirst() {
                    let item = parameter.split(separator: "=", maxSplits: 1)
                    guard item.count == 2 else { continue }
                    let value = unquote(item[1].trimmed)
                    switch item[0].trimmed.lowercased() {
                    case "name":
                        part.name = value
                        named = true
                    case "filename": part.filename = value
                    default: break
                    }
                }
            case "content-type": part.contentType = pair[1].trimmed
            default: break
            }
        }
        return named ? part : nil
    }

    private static func unquote(_ text: String) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
        // WHATWG's encoding of quotes and backslashes in form-data names.
        return String(text.dropFirst().dropLast()).replacing("%22", with: "\"").replacing("%5C", with: "\\")
    }

    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while index <= last {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
