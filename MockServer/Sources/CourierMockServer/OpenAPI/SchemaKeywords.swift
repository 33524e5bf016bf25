/// Reading a schema's keyword values, the same way for the validator, the
/// sampler and parameter decoding.
enum SchemaKeywords {
    /// A numeric keyword (`minimum`, `multipleOf`), integer or not.
    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .int(let number)?: Double(number)
        case .double(let number)?: number
        default: nil
        }
    }

    /// A count keyword (`maxLength`, `minItems`): a non-negative whole number.
    static func count(_ value: JSONValue?) -> Int? {
        switch value {
        case .int(let number)?: Int(clamping: number)
        case .double(let number)? where number.isFinite && number >= 0: Int(number)
        default: nil
        }
    }

    /// The names under `type` (one, or an array of them); with `inferred`,
    /// a schema without `type` that has `properties` is an object and one
    /// with `items` an array.
    static func types(_ keywords: [String: JSONValue], inferred: Bool = false) -> [String] {
        switch keywords["type"] {
        case .string(let name)?: [name]
        case .array(let names)?: names.compactMap { if case .string(let name) = $0 { name } else { nil } }
        default:
            !inferred
                ? [] : keywords["properties"] != nil ? ["object"] : keywords["items"] != nil ? ["array"] : []
        }
    }

    /// Whether a media type's essence is JSON (`application/json`, `…+json`).
    static func isJSON(_ essence: String) -> Bool {
        essence == "application/json" || essence.hasSuffix("+json")
    }
}
