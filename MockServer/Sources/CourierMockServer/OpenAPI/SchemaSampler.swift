import Foundation

/// Makes a value that a schema accepts, the same one every time for the
/// same seed: the schema's own example, default, const or first enum value
/// when it has one; else one built from its type — every property (required
/// and optional, `writeOnly` left out of responses), formats, bounds and
/// `multipleOf` honoured, `allOf` merged, the first branch of `oneOf` and
/// `anyOf`. A value that varies by seed is picked from the place it sits
/// (its JSON pointer), so adding a property does not change the others.
struct SchemaSampler: Sendable {
    let files: SpecFiles
    let dialect: SchemaDialect
    let direction: SchemaDirection
    let seed: UInt64

    /// A value for `schema`, found at `location`.
    func sample(_ schema: JSONValue, at location: SpecLocation) -> JSONValue {
        sample(schema, location, pointer: "", depth: 0)
    }

    private func sample(_ schema: JSONValue, _ location: SpecLocation, pointer: String, depth: Int)
        -> JSONValue
    {
        guard depth < 16, let (resolved, location) = try? files.dereferenced(schema, at: location) else {
            return .null
        }
        guard case .object(let keywords) = resolved else {
            return resolved == .bool(false) ? .null : .object([:])
        }
        if let example = keywords["example"] { return example }
        if case .array(let examples)? = keywords["examples"], let first = examples.first { return first }
        if let constant = keywords["const"] { return constant }
        if let value = keywords["default"] { return value }
        if case .array(let options)? = keywords["enum"], let first = options.first { return first }
        if case .array(let all)? = keywords["allOf"] {
            var merged: [String: JSONValue] = [:]
            var other: JSONValue?
            for (index, branch) in all.enumerated() {
                let value = sample(
                    branch, location.appending("allOf").appending(String(index)), pointer: pointer,
                    depth: depth + 1)
                if case .object(let object) = value {
                    merged.merge(object) { current, _ in current }
                } else {
                    other = value
                }
            }
            var own = keywords
            own["allOf"] = nil
            if own["properties"] != nil || own["type"] == .string("object") {
                if case .object(let object) = sample(
                    .object(own), location, pointer: pointer, depth: depth + 1)
                {
                    merged.merge(object) { current, _ in current }
                }
            }
            return merged.isEmpty ? (other ?? .object([:])) : .object(merged)
        }
        for key in ["oneOf", "anyOf"] {
            if case .array(let branches)? = keywords[key], let first = branches.first {
                return sample(
                    first, location.appending(key).appending("0"), pointer: pointer, depth: depth + 1)
            }
        }
        let types = SchemaKeywords.types(keywords, inferred: true)
        // No type at all: a string, the plainest value.
        switch types.isEmpty ? "string" : types.first(where: { $0 != "null" }) ?? "null" {
        case "object": return object(keywords, location, pointer: pointer, depth: depth)
        case "array": return array(keywords, location, pointer: pointer, depth: depth)
        case "integer": return .int(integer(keywords, pointer: pointer))
        case "number": return number(keywords, pointer: pointer)
        case "boolean": return .bool(pick(pointer) % 2 == 0)
        case "null": return .null
        default: return .string(string(keywords, pointer: pointer))
        }
    }

    private func object(
        _ keywords: [String: JSONValue], _ location: SpecLocation, pointer: String, depth: Int
    )
        -> JSONValue
    {
        var object: [String: JSONValue] = [:]
        let required: Set<String> =
            if case .array(let names)? = keywords["required"] {
                Set(names.compactMap { if case .string(let name) = $0 { name } else { nil } })
            } else { [] }
        if case .object(let properties)? = keywords["properties"] {
            for (name, property) in properties {
                let propertyLocation = location.appending("properties").appending(name)
                if !required.contains(name) {
                    // Optional properties stop where a recursive schema would go on forever.
                    if depth >= 6 || skipped(property, propertyLocation) { continue }
                }
                object[name] = sample(
                    property, propertyLocation, pointer: pointer + "/" + JSONPointer.escape(name),
                    depth: depth + 1)
            }
        }
        for name in required where object[name] == nil { object[name] = .string(name) }
        return .object(object)
    }

    /// A property the other direction owns.
    private func skipped(_ property: JSONValue, _ location: SpecLocation) -> Bool {
        guard let (resolved, _) = try? files.dereferenced(property, at: location),
            case .object(let keywords) = resolved
        else { return false }
        return direction == .response
            ? keywords["writeOnly"] == .bool(true) : keywords["readOnly"] == .bool(true)
    }

    private func array(_ keywords: [String: JSONValue], _ location: SpecLocation, pointer: String, depth: Int)
        -> JSONValue
    {
        let minimum = SchemaKeywords.count(keywords["minItems"]) ?? 0
        let maximum = SchemaKeywords.count(keywords["maxItems"]) ?? Int.max
        let count = min(max(1, minimum), maximum, 64)
        var items: [JSONValue] = []
        let prefix: [JSONValue] = if case .array(let prefix)? = keywords["prefixItems"] { prefix } else { [] }
        for index in 0..<max(count, prefix.count) {
            let itemPointer = pointer + "/\(index)"
            if index < prefix.count {
                items.append(
                    sample(
                        prefix[index], location.appending("prefixItems").appending(String(index)),
                        pointer: itemPointer, depth: depth + 1))
            } else if let schema = keywords["items"], schema != .bool(false) {
                var item = sample(schema, location.appending("items"), pointer: itemPointer, depth: depth + 1)
                // uniqueItems: vary a repeated scalar by its position.
                if keywords["uniqueItems"] == .bool(true), items.contains(item) {
                    switch item {
                    case .int(let value): item = .int(value + Int64(index))
                    case .string(let value): item = .string(value + String(index))
                    default: break
                    }
                }
                items.append(item)
            } else {
                break
            }
        }
        return .array(items)
    }

    private func integer(_ keywords: [String: JSONValue], pointer: String) -> Int64 {
        var lower =
            SchemaKeywords.number(keywords["minimum"]).map {
                Int64(clamping: Int(exactly: $0.rounded(.up)) ?? 0)
            } ?? 1
        var upper =
            SchemaKeywords.number(keywords["maximum"]).map {
                Int64(clamping: Int(exactly: $0.rounded(.down)) ?? 0)
            }
            ?? lower + 999
        if keywords["exclusiveMinimum"] == .bool(true) { lower += 1 }
        if keywords["exclusiveMaximum"] == .bool(true) { upper -= 1 }
        if let bound = SchemaKeywords.number(keywords["exclusiveMinimum"]) {
            lower = max(lower, Int64(bound.rounded(.down)) + 1)
        }
        if let bound = SchemaKeywords.number(keywords["exclusiveMaximum"]) {
            upper = min(upper, Int64(bound.rounded(.up)) - 1)
        }
        if case .string("int32")? = keywords["format"] { upper = min(upper, Int64(Int32.max)) }
        guard upper >= lower else { return lower }
        var value = lower + Int64(pick(pointer) % UInt64(min(upper - lower, 1_000) + 1))
        if let divisor = SchemaKeywords.number(keywords["multipleOf"]), divisor >= 1 {
            let step = Int64(divisor)
            value = (value + step - 1) / step * step
            if value > upper { value -= step }
        }
        return value
    }

    private func number(_ keywords: [String: JSONValue], pointer: String) -> JSONValue {
        if SchemaKeywords.number(keywords["multipleOf"]) != nil || keywords["format"] == .string("int32") {
            return .int(integer(keywords, pointer: pointer))
        }
        let lower =
            SchemaKeywords.number(keywords["minimum"]) ?? SchemaKeywords.number(keywords["exclusiveMinimum"])
            .map { $0 + 0.5 }
            ?? 0
        let upper =
            SchemaKeywords.number(keywords["maximum"]) ?? SchemaKeywords.number(keywords["exclusiveMaximum"])
            .map { $0 - 0.5 }
            ?? lower + 100
        guard upper > lower else { return .double(lower) }
        let fraction = Double(pick(pointer) % 1_000) / 1_000
        return .double(((lower + (upper - lower) * fraction) * 100).rounded() / 100)
    }

    private func string(_ keywords: [String: JSONValue], pointer: String) -> String {
        let variant = pick(pointer)
        var text: String
        switch keywords["format"] {
        case .string("date-time")?: text = "2024-0\(variant % 9 + 1)-1\(variant % 9)T12:00:00Z"
        case .string("date")?: text = "2024-0\(variant % 9 + 1)-1\(variant % 9)"
        case .string("time")?: text = "12:00:0\(variant % 10)Z"
        case .string("email")?: text = "user\(variant % 100)@example.com"
        case .string("uuid")?:
            let hex = String(format: "%012llx", variant & 0xffff_ffff_ffff)
            text = "00000000-0000-4000-8000-\(hex)"
        case .string("uri")?, .string("url")?: text = "https://example.com/\(variant % 100)"
        case .string("ipv4")?: text = "192.0.2.\(variant % 250 + 1)"
        case .string("ipv6")?: text = "2001:db8::\(variant % 250 + 1)"
        case .string("byte")?: text = Data("sample\(variant % 100)".utf8).base64EncodedString()
        default:
            if case .string(let pattern)? = keywords["pattern"],
                let sample = PatternSampler.sample(pattern, variant: variant)
            {
                return sample
            }
            let last = pointer.split(separator: "/").last.map(String.init) ?? "string"
            text = Int(last) == nil ? last : "item"
        }
        if let minimum = SchemaKeywords.count(keywords["minLength"]), text.count < minimum {
            text += String(repeating: "x", count: minimum - text.count)
        }
        if let maximum = SchemaKeywords.count(keywords["maxLength"]), text.count > maximum {
            text = String(text.prefix(maximum))
        }
        return text
    }

    /// A number that depends on the seed and the place only (FNV-1a, then a mix).
    private func pick(_ pointer: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        for byte in pointer.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        return hash ^ (hash >> 33)
    }

}
