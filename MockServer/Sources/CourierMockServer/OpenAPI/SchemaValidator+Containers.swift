import Foundation

/// Arrays and objects: their sizes, items, properties and dependencies.
extension SchemaValidator {
    // MARK: Arrays

    func checkArray(
        _ items: [JSONValue], _ keywords: [String: JSONValue], _ location: SpecLocation, _ pointer: String,
        depth: Depth, _ findings: inout [SpecFinding]
    ) {
        func fail(_ keyword: String, _ message: String, at place: String? = nil) {
            findings.append(finding(keyword, message, location, place ?? pointer))
        }
        if let maximum = SchemaKeywords.count(keywords["maxItems"]), items.count > maximum {
            fail("maxItems", "\(items.count) items, more than \(maximum)")
        }
        if let minimum = SchemaKeywords.count(keywords["minItems"]), items.count < minimum {
            fail("minItems", "\(items.count) items, fewer than \(minimum)")
        }
        if keywords["uniqueItems"] == .bool(true) {
            outer: for first in items.indices {
                for second in items.indices where second > first && Self.equal(items[first], items[second]) {
                    fail("uniqueItems", "items \(first) and \(second) are equal")
                    break outer
                }
            }
        }
        // Positional schemas: 2020-12's prefixItems, or an array under items
        // (draft 4's tuple form), then items or additionalItems for the rest.
        var positional: [JSONValue] = []
        var positionalKey = "prefixItems"
        var rest: JSONValue? = keywords["items"]
        var restKey = "items"
        if case .array(let prefix)? = keywords["prefixItems"] {
            positional = prefix
        } else if case .array(let tuple)? = keywords["items"] {
            positional = tuple
            positionalKey = "items"
            rest = keywords["additionalItems"]
            restKey = "additionalItems"
        }
        for (index, item) in items.enumerated() {
            let itemPointer = pointer + "/\(index)"
            if index < positional.count {
                check(
                    item, positional[index], location.appending(positionalKey).appending(String(index)),
                    itemPointer,
                    depth: depth + 1, &findings)
            } else if let rest {
                check(item, rest, location.appending(restKey), itemPointer, depth: depth + 1, &findings)
            }
        }
        if let contains = keywords["contains"] {
            let containsLocation = location.appending("contains")
            let matches = items.indices.filter { index in
                holds(items[index], contains, containsLocation, at: pointer + "/\(index)", depth: depth + 1)
            }.count
            let minimum = SchemaKeywords.count(keywords["minContains"]) ?? 1
            if matches < minimum {
                fail(
                    minimum == 1 && keywords["minContains"] == nil ? "contains" : "minContains",
                    "\(matches) items match contains, fewer than \(minimum)")
            }
            if let maximum = SchemaKeywords.count(keywords["maxContains"]), matches > maximum {
                fail("maxContains", "\(matches) items match contains, more than \(maximum)")
            }
        }
    }

    // MARK: Objects

    // swift-format-ignore: FunctionBodyLength
    func checkObject(
        _ object: [String: JSONValue], _ keywords: [String: JSONValue], _ location: SpecLocation,
        _ pointer: String,
        depth: Depth, _ findings: inout [SpecFinding]
    ) {
        func fail(_ keyword: String, _ message: String, at place: String? = nil) {
            findings.append(finding(keyword, message, location, place ?? pointer))
        }
        let properties: [String: JSONValue] =
            if case .object(let properties)? = keywords["properties"] { properties } else { [:] }
        if case .array(let required)? = keywords["required"] {
            for case .string(let name) in required where object[name] == nil {
                if let property = properties[name],
                    skipsRequired(property, location.appending("properties").appending(name))
                {
                    continue
                }
                fail(
                    "required", "the required property \(name) is missing",
                    at: pointer + "/" + JSONPointer.escape(name))
            }
        }
        if let maximum = SchemaKeywords.count(keywords["maxProperties"]), object.count > maximum {
            fail("maxProperties", "\(object.count) properties, more than \(maximum)")
        }
        if let minimum = SchemaKeywords.count(keywords["minProperties"]), object.count < minimum {
            fail("minProperties", "\(object.count) properties, fewer than \(minimum)")
        }
        var patterns: [(NSRegularExpression, String, JSONValue)] = []
        if case .object(let patternProperties)? = keywords["patternProperties"] {
            for (pattern, schema) in patternProperties {
                if let regex = SchemaFormats.regex(pattern) { patterns.append((regex, pattern, schema)) }
            }
        }
        let additional = keywords["additionalProperties"]
        let names = keywords["propertyNames"]
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            let valuePointer = pointer + "/" + JSONPointer.escape(name)
            var evaluated = false
            if let property = properties[name] {
                evaluated = true
                check(
                    value, property, location.appending("properties").appending(name), valuePointer,
                    depth: depth + 1, &findings)
            }
            for (regex, pattern, schema) in patterns where SchemaFormats.search(regex, in: name) {
                evaluated = true
                check(
                    value, schema, location.appending("patternProperties").appending(pattern), valuePointer,
                    depth: depth + 1, &findings)
            }
            if !evaluated, let additional {
                if additional == .bool(false) {
                    fail("additionalProperties", "the property \(name) is not allowed here", at: valuePointer)
                } else {
                    check(
                        value, additional, location.appending("additionalProperties"), valuePointer,
                        depth: depth + 1, &findings)
                }
            }
            if let names,
                !holds(
                    .string(name), names, location.appending("propertyNames"), at: valuePointer + "#name",
                    depth: depth + 1)
            {
                fail("propertyNames", "the property name \(name) breaks propertyNames", at: valuePointer)
            }
        }
        if case .object(let dependencies)? = keywords["dependentRequired"] {
            for (trigger, needed) in dependencies where object[trigger] != nil {
                guard case .array(let needed) = needed else { continue }
                for case .string(let name) in needed where object[name] == nil {
                    fail(
                        "dependentRequired", "\(trigger) is present, so \(name) is required",
                        at: pointer + "/" + JSONPointer.escape(name))
                }
            }
        }
        if case .object(let dependencies)? = keywords["dependentSchemas"] {
            for (trigger, schema) in dependencies where object[trigger] != nil {
                check(
                    .object(object), schema, location.appending("dependentSchemas").appending(trigger),
                    pointer,
                    depth: depth + 1, &findings)
            }
        }
    }

    /// A required property the other direction owns: `readOnly` in a
    /// request, `writeOnly` in a response.
    private func skipsRequired(_ property: JSONValue, _ location: SpecLocation) -> Bool {
        guard let (resolved, _) = try? files.dereferenced(property, at: location),
            case .object(let keywords) = resolved
        else { return false }
        switch direction {
        case .request: return keywords["readOnly"] == .bool(true)
        case .response: return keywords["writeOnly"] == .bool(true)
        }
    }
}
