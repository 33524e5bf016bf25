extension JSONValue {
    /// The value as JSON text: compact, keys in document order or sorted.
    ///
    /// Written in Swift rather than by `json_dumpb`: Swift prints the shortest
    /// text that reads back as the same `Double` (`0.1`, not jansson's
    /// `0.10000000000000001`), and no C tree has to be built first.
    public func serialized(sortedKeys: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        write(into: &output, sortedKeys: sortedKeys)
        return output
    }

    private func write(into output: inout [UInt8], sortedKeys: Bool) {
        switch self {
        case .null: output += Array("null".utf8)
        case .bool(let value): output += Array((value ? "true" : "false").utf8)
        case .int(let value): output += Array(String(value).utf8)
        case .double(let value):
            // JSON has no NaN or infinity: write null, as JSON.stringify does.
            output += Array((value.isFinite ? Self.text(value) : "null").utf8)
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output, sortedKeys: sortedKeys)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            let members = sortedKeys ? object.sorted { $0.key < $1.key } : Array(object)
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(into: &output, sortedKeys: sortedKeys)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A finite double: integral values keep a `.0` so they read back as reals.
    private static func text(_ value: Double) -> String {
        let text = "\(value)"
        return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
    }

    private static func writeString(_ value: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [92, 34]
            case UInt8(ascii: "\\"): output += [92, 92]
            case 0x0A: output += [92, UInt8(ascii: "n")]
            case 0x0D: output += [92, UInt8(ascii: "r")]
            case 0x09: output += [92, UInt8(ascii: "t")]
            case 0x08: output += [92, UInt8(ascii: "b")]
            case 0x0C: output += [92, UInt8(ascii: "f")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
