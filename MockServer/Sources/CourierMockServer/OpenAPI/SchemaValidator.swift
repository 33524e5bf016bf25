import Foundation

/// Which JSON Schema a document's schemas speak: OpenAPI 3.0's extended
/// subset of draft 5 (`nullable`, boolean `exclusiveMaximum`, `$ref`
/// replacing its siblings) or OpenAPI 3.1's JSON Schema 2020-12.
public enum SchemaDialect: Sendable {
    /// OpenAPI 3.0.x.
    case openAPI30
    /// OpenAPI 3.1.x.
    case openAPI31
}

/// Which way a value travels: a `readOnly` property is not required in a
/// request, a `writeOnly` one not in a response.
public enum SchemaDirection: Sendable {
    /// Client to server.
    case request
    /// Server to client.
    case response
}

/// Checks a JSON value against a schema of the document and lists every
/// rule it breaks.
///
/// No JSON Schema validator is in the Swift packages this project can use
/// (OpenAPIKit reads schemas but does not check values against them), so
/// this one is Courier's, proved on the JSON Schema Test Suite's cases for
/// every keyword it implements (`JSONSchemaSuiteTests`). Not implemented:
/// `$id`, `$anchor` and `$dynamicRef` (references are JSON pointers,
/// within a file or to a sibling file), `unevaluatedProperties`,
/// `unevaluatedItems`, `discriminator` mapping (the `oneOf` it sits on is
/// checked as usual). `format` is asserted for the formats an API uses
/// (`date-time`, `date`, `time`, `email`, `uuid`, `uri`, `ipv4`, `ipv6`,
/// `byte`, `int32`, `int64`); others pass.
public struct SchemaValidator: Sendable {
    let files: SpecFiles
    let dialect: SchemaDialect
    let direction: SchemaDirection

    /// A validator over `files`' schemas.
    public init(files: SpecFiles, dialect: SchemaDialect, direction: SchemaDirection) {
        self.files = files
        self.dialect = dialect
        self.direction = direction
    }

    /// Every rule `instance` breaks under `schema` (found at `location`);
    /// pointers start at `pointer`. Empty when it is valid.
    public func validate(
        _ instance: JSONValue, against schema: JSONValue, at location: SpecLocation, pointer: String
    ) -> [SpecFinding] {
        var findings: [SpecFinding] = []
        check(instance, schema, location, pointer, depth: Depth(), &findings)
        return findings
    }

    /// Whether `instance` is valid under `schema`: for the branches of
    /// `anyOf`, `oneOf`, `not` and `if`.
    func holds(
        _ instance: JSONValue, _ schema: JSONValue, _ location: SpecLocation, at pointer: String, depth: Depth
    ) -> Bool {
        var findings: [SpecFinding] = []
        check(instance, schema, location, pointer, depth: depth, &findings)
        return findings.isEmpty
    }

    /// How deep a check is, and which references it followed without going
    /// deeper into the value: entering one of those again is a cycle that
    /// would never end (`A: {anyOf: [{$ref: A}]}`), so it stops there.
    struct Depth {
        var level = 0
        private var references: Set<String> = []

        static func + (depth: Depth, levels: Int) -> Depth {
            var deeper = depth
            deeper.level += levels
            return deeper
        }

        /// One level deeper through the reference `key` (its target and the
        /// value's pointer); `nil` when this check already went through it.
        func entering(_ key: String) -> Depth? {
            guard !references.contains(key) else { return nil }
            var deeper = self + 1
            deeper.references.insert(key)
            return deeper
        }
    }

    func finding(_ keyword: String, _ message: String, _ location: SpecLocation, _ pointer: String)
        -> SpecFinding
    {
        SpecFinding(
            rule: "schema/\(keyword)", pointer: pointer, message: message,
            source: "\(location.file.lastPathComponent)#\(location.pointer)/\(keyword)")
    }

    // swift-format-ignore: FunctionBodyLength
    func check(
        _ instance: JSONValue, _ schema: JSONValue, _ location: SpecLocation, _ pointer: String, depth: Depth,
        _ findings: inout [SpecFinding]
    ) {
        func fail(_ keyword: String, _ message: String) {
            findings.append(finding(keyword, message, location, pointer))
        }
        guard depth.level < 64 else {
            fail("$ref", "the schema nests deeper than 64 levels (a reference cycle?)")
            return
        }
        let keywords: [String: JSONValue]
        switch schema {
        case .bool(true): return
        case .bool(false):
            fail("false", "no value is allowed here")
            return
        case .object(let object): keywords = object
        default: return
        }
        if case .string(let reference)? = keywords["$ref"] {
            do {
                let (target, targetLocation) = try files.resolve(reference, from: location)
                let key = "\(targetLocation.file.path)#\(targetLocation.pointer)@\(pointer)"
                if let entered = depth.entering(key) {
                    check(instance, target, targetLocation, pointer, depth: entered, &findings)
                } else {
                    fail("$ref", "the schema refers back to itself without going deeper into the value")
                }
            } catch {
                fail("$ref", "the schema's reference cannot be followed: \(error)")
            }
            // OpenAPI 3.0: a reference replaces its siblings.
            if dialect == .openAPI30 { return }
        }
        if dialect == .openAPI30, case .null = instance, keywords["nullable"] == .bool(true) { return }

        let names = SchemaKeywords.types(keywords)
        if !names.isEmpty, !names.contains(where: { Self.instance(instance, is: $0) }) {
            fail(
                "type",
                "expected \(names.joined(separator: " or ")), found \(instance.typeName) \(Self.short(instance))"
            )
        }
        if case .array(let options)? = keywords["enum"],
            !options.contains(where: { Self.equal($0, instance) })
        {
            fail("enum", "\(Self.short(instance)) is not one of \(Self.short(.array(options)))")
        }
        if let constant = keywords["const"], !Self.equal(constant, instance) {
            fail("const", "expected \(Self.short(constant)), found \(Self.short(instance))")
        }
        switch instance {
        case .int, .double:
            checkNumber(instance, keywords, location, pointer, &findings)
        case .string(let text):
            checkString(text, keywords, location, pointer, &findings)
        case .array(let items):
            checkArray(items, keywords, location, pointer, depth: depth, &findings)
        case .object(let object):
            checkObject(object, keywords, location, pointer, depth: depth, &findings)
        default: break
        }

        if case .array(let all)? = keywords["allOf"] {
            for (index, branch) in all.enumerated() {
                check(
                    instance, branch, location.appending("allOf").appending(String(index)), pointer,
                    depth: depth + 1,
                    &findings)
            }
        }
        if case .array(let any)? = keywords["anyOf"] {
            let anyLocation = location.appending("anyOf")
            let matched = any.indices.contains { index in
                holds(
                    instance, any[index], anyLocation.appending(String(index)), at: pointer, depth: depth + 1)
            }
            if !matched { fail("anyOf", "matches none of the \(any.count) schemas of anyOf") }
        }
        if case .array(let one)? = keywords["oneOf"] {
            let oneLocation = location.appending("oneOf")
            let matched = one.indices.filter { index in
                holds(
                    instance, one[index], oneLocation.appending(String(index)), at: pointer, depth: depth + 1)
            }
            if matched.count != 1 {
                fail(
                    "oneOf",
                    matched.isEmpty
                        ? "matches none of the \(one.count) schemas of oneOf"
                        : "matches \(matched.count) schemas of oneOf (\(matched.map(String.init).joined(separator: ", "))), not exactly one"
                )
            }
        }
        if let not = keywords["not"],
            holds(instance, not, location.appending("not"), at: pointer, depth: depth + 1)
        {
            fail("not", "matches the schema under not")
        }
        if let condition = keywords["if"], dialect == .openAPI31 {
            if holds(instance, condition, location.appending("if"), at: pointer, depth: depth + 1) {
                if let then = keywords["then"] {
                    check(instance, then, location.appending("then"), pointer, depth: depth + 1, &findings)
                }
            } else if let otherwise = keywords["else"] {
                check(instance, otherwise, location.appending("else"), pointer, depth: depth + 1, &findings)
            }
        }
    }

    // MARK: Types

    static func instance(_ value: JSONValue, is type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("object", .object), ("array", .array), ("string", .string),
            ("number", .int), ("number", .double), ("integer", .int):
            true
        case ("integer", .double(let number)): number.isFinite && number.rounded(.towardZero) == number
        default: false
        }
    }

    /// JSON Schema's equality: numbers by value (`1` is `1.0`), strings by
    /// code points (not Swift's canonical equivalence: `é` and `e` + a
    /// combining accent differ), arrays and objects member by member.
    static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            a.count == b.count && a.allSatisfy { key, value in b[key].map { equal(value, $0) } ?? false }
        default: lhs.numericallyEquals(rhs)
        }
    }

    /// A value's JSON, cut to 60 characters, for messages.
    static func short(_ value: JSONValue) -> String {
        let text = value.description
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }

    // MARK: Numbers

    private func checkNumber(
        _ instance: JSONValue, _ keywords: [String: JSONValue], _ location: SpecLocation, _ pointer: String,
        _ findings: inout [SpecFinding]
    ) {
        func fail(_ keyword: String, _ message: String, at place: String? = nil) {
            findings.append(finding(keyword, message, location, place ?? pointer))
        }
        guard let value = SchemaKeywords.number(instance) else { return }
        if let divisor = SchemaKeywords.number(keywords["multipleOf"]), divisor > 0 {
            let quotient = value / divisor
            let isMultiple =
                quotient.isFinite
                && (quotient.rounded() == quotient
                    || abs(quotient - quotient.rounded()) < 1e-9 * max(1, abs(quotient)))
            if !isMultiple { fail("multipleOf", "\(Self.short(instance)) is not a multiple of \(divisor)") }
        }
        if let maximum = SchemaKeywords.number(keywords["maximum"]) {
            let exclusive = keywords["exclusiveMaximum"] == .bool(true)
            if exclusive ? value >= maximum : value > maximum {
                fail(
                    exclusive ? "exclusiveMaximum" : "maximum",
                    "\(Self.short(instance)) is above the \(exclusive ? "exclusive " : "")maximum \(Self.short(keywords["maximum"] ?? .null))",
                )
            }
        }
        if let minimum = SchemaKeywords.number(keywords["minimum"]) {
            let exclusive = keywords["exclusiveMinimum"] == .bool(true)
            if exclusive ? value <= minimum : value < minimum {
                fail(
                    exclusive ? "exclusiveMinimum" : "minimum",
                    "\(Self.short(instance)) is below the \(exclusive ? "exclusive " : "")minimum \(Self.short(keywords["minimum"] ?? .null))",
                )
            }
        }
        if let bound = SchemaKeywords.number(keywords["exclusiveMaximum"]), value >= bound {
            fail(
                "exclusiveMaximum",
                "\(Self.short(instance)) is not below \(Self.short(keywords["exclusiveMaximum"] ?? .null))")
        }
        if let bound = SchemaKeywords.number(keywords["exclusiveMinimum"]), value <= bound {
            fail(
                "exclusiveMinimum",
                "\(Self.short(instance)) is not above \(Self.short(keywords["exclusiveMinimum"] ?? .null))")
        }
        if case .string(let format)? = keywords["format"],
            let problem = SchemaFormats.problem(number: instance, format: format)
        {
            fail("format", problem)
        }
    }

    // MARK: Strings

    private func checkString(
        _ text: String, _ keywords: [String: JSONValue], _ location: SpecLocation, _ pointer: String,
        _ findings: inout [SpecFinding]
    ) {
        func fail(_ keyword: String, _ message: String, at place: String? = nil) {
            findings.append(finding(keyword, message, location, place ?? pointer))
        }
        let length = text.unicodeScalars.count
        if let maximum = SchemaKeywords.count(keywords["maxLength"]), length > maximum {
            fail("maxLength", "\(length) characters, more than \(maximum)")
        }
        if let minimum = SchemaKeywords.count(keywords["minLength"]), length < minimum {
            fail("minLength", "\(length) characters, fewer than \(minimum)")
        }
        if case .string(let pattern)? = keywords["pattern"], let regex = SchemaFormats.regex(pattern),
            !SchemaFormats.search(regex, in: text)
        {
            fail("pattern", "\(Self.short(.string(text))) does not match \(pattern)")
        }
        if case .string(let format)? = keywords["format"],
            let problem = SchemaFormats.problem(string: text, format: format)
        {
            fail("format", problem)
        }
    }
}
