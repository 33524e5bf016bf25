extension Parameters {
    /// The parameters as a JSON object, keys in their written order.
    ///
    /// Written here rather than with `JSONEncoder`, whose key order is not
    /// stable on every platform: a signed or cached body must not change
    /// between runs.
    /// - Throws: ``CourierError/Code/invalidRequest`` for NaN or infinite numbers.
    public func jsonBytes() throws(CourierError) -> [UInt8] {
        var out: [UInt8] = []
        try ParameterValue.object(self).writeJSON(into: &out)
        return out
    }
}

extension ParameterValue {
    func writeJSON(into out: inout [UInt8]) throws(CourierError) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let flag): out += Array((flag ? "true" : "false").utf8)
        case .int(let number): out += Array(String(number).utf8)
        case .double(let number):
            guard number.isFinite else {
                throw CourierError(.invalidRequest, stage: .build, message: "JSON cannot represent \(number)")
            }
            out += Array(
                (number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number))
                    .utf8)
        case .string(let text): Self.writeString(text, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                try element.writeJSON(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let parameters):
            out.append(UInt8(ascii: "{"))
            for (index, pair) in parameters.pairs.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(pair.key, into: &out)
                out.append(UInt8(ascii: ":"))
                try pair.value.writeJSON(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped;
    /// everything else as UTF-8.
    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
