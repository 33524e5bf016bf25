import Foundation

/// Turns a parameter's text, as its `style` and `explode` wrote it, into the
/// JSON value its schema describes: `limit=10` is the integer 10,
/// `tags=a&tags=b` (form, exploded) and `tags=a,b` (form) the array
/// `["a", "b"]`, `filter[name]=x` (deepObject) the object `{"name": "x"}`.
/// A text that is not the type the schema asks for stays a string, so that
/// validation names the mismatch.
enum ParameterDecoding {
    /// The value of `parameter` from query pairs, or `nil` when absent.
    static func query(_ parameter: SpecParameter, _ pairs: [(name: String, value: String)])
        -> JSONValue?
    {
        let shape = parameter.shape
        if parameter.isContent {
            return pairs.first { $0.name == parameter.name }.map {
                (try? JSONValue.parse(Array($0.value.utf8))) ?? .string($0.value)
            }
        }
        switch (parameter.style, shape.kind) {
        case ("deepObject", _):
            let prefix = parameter.name + "["
            var object: [String: JSONValue] = [:]
            for pair in pairs where pair.name.hasPrefix(prefix) && pair.name.hasSuffix("]") {
                let key = String(pair.name.dropFirst(prefix.count).dropLast())
                object[key] = shape.property(key).scalar(pair.value)
            }
            return object.isEmpty ? nil : .object(object)
        case (_, .array):
            let values = pairs.filter { $0.name == parameter.name }.map(\.value)
            guard !values.isEmpty else { return nil }
            if parameter.explode { return .array(values.map(shape.item.scalar)) }
            let separator: Character =
                switch parameter.style {
                case "spaceDelimited": " "
                case "pipeDelimited": "|"
                default: ","
                }
            return .array(
                values.flatMap { $0.split(separator: separator, omittingEmptySubsequences: false) }.map {
                    shape.item.scalar(String($0))
                })
        case (_, .object) where parameter.explode:
            // Form, exploded: each property is a parameter of its own.
            var object: [String: JSONValue] = [:]
            for name in shape.propertyNames {
                if let pair = pairs.first(where: { $0.name == name }) {
                    object[name] = shape.property(name).scalar(pair.value)
                }
            }
            return object.isEmpty ? nil : .object(object)
        case (_, .object):
            guard let text = pairs.first(where: { $0.name == parameter.name })?.value else { return nil }
            return shape.objectFromList(
                text.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
        default:
            return pairs.first { $0.name == parameter.name }.map { shape.scalar($0.value) }
        }
    }

    /// The value of a path, header or cookie parameter from its text
    /// (`simple` style; `label` and `matrix` in a path).
    static func simple(_ parameter: SpecParameter, _ text: String) -> JSONValue {
        let shape = parameter.shape
        if parameter.isContent { return (try? JSONValue.parse(Array(text.utf8))) ?? .string(text) }
        var text = text
        var separator: Character = ","
        switch parameter.style {
        case "label":
            if text.hasPrefix(".") { text.removeFirst() }
            if parameter.explode { separator = "." }
        case "matrix":
            let prefix = ";\(parameter.name)="
            if text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
            if parameter.explode { separator = ";" }
        default: break
        }
        switch shape.kind {
        case .array:
            return .array(
                text.split(separator: separator, omittingEmptySubsequences: false).map {
                    shape.item.scalar(String($0))
                })
        case .object:
            let parts = text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
            if parameter.explode {
                var object: [String: JSONValue] = [:]
                for part in parts {
                    let pair = part.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2 else { continue }
                    object[String(pair[0])] = shape.property(String(pair[0])).scalar(String(pair[1]))
                }
                return .object(object)
            }
            return shape.objectFromList(parts)
        default:
            return shape.scalar(text)
        }
    }

    /// What a schema says a parameter is, enough to read its text.
    struct Shape {
        enum Kind {
            case array, object, integer, number, boolean, null, string
        }

        let kind: Kind
        private let schema: [String: JSONValue]
        private let location: SpecLocation?
        private let files: SpecFiles

        init(_ schema: (value: JSONValue, location: SpecLocation)?, files: SpecFiles) {
            self.files = files
            guard let schema,
                let (resolved, location) = try? files.dereferenced(schema.value, at: schema.location),
                case .object(var object) = resolved
            else {
                kind = .string
                self.schema = [:]
                location = nil
                return
            }
            // allOf / oneOf / anyOf: the first branch says the shape.
            for key in ["allOf", "oneOf", "anyOf"] where object["type"] == nil {
                if case .array(let branches)? = object[key], let first = branches.first,
                    let (branch, _) = try? files.dereferenced(first, at: location),
                    case .object(let inner) = branch
                {
                    object.merge(inner) { current, _ in current }
                }
            }
            self.schema = object
            self.location = location
            let types = SchemaKeywords.types(object, inferred: true)
            kind =
                switch types.first(where: { $0 != "null" }) ?? types.first {
                case "array": .array
                case "object": .object
                case "integer": .integer
                case "number": .number
                case "boolean": .boolean
                case "null": .null
                default: .string
                }
        }

        private init(kind: Kind, files: SpecFiles) {
            self.kind = kind
            schema = [:]
            location = nil
            self.files = files
        }

        /// An array's item shape.
        var item: Shape {
            guard let items = schema["items"], let location else { return Shape(kind: .string, files: files) }
            return Shape((items, location.appending("items")), files: files)
        }

        /// An object's property names.
        var propertyNames: [String] {
            if case .object(let properties)? = schema["properties"] { return properties.keys.sorted() }
            return []
        }

        /// A property's shape.
        func property(_ name: String) -> Shape {
            guard case .object(let properties)? = schema["properties"], let property = properties[name],
                let location
            else { return Shape(kind: .string, files: files) }
            return Shape((property, location.appending("properties").appending(name)), files: files)
        }

        /// `key,value,key,value` as an object.
        func objectFromList(_ parts: [String]) -> JSONValue {
            var object: [String: JSONValue] = [:]
            var index = 0
            while index + 1 < parts.count {
                object[parts[index]] = property(parts[index]).scalar(parts[index + 1])
                index += 2
            }
            return .object(object)
        }

        /// The text as the scalar the schema asks for, when it reads as one.
        func scalar(_ text: String) -> JSONValue {
            switch kind {
            case .integer:
                if let number = Int64(text) { return .int(number) }
            case .number:
                if let number = Int64(text) { return .int(number) }
                if let number = Double(text), number.isFinite { return .double(number) }
            case .boolean:
                if text == "true" { return .bool(true) }
                if text == "false" { return .bool(false) }
            case .null:
                if text.isEmpty || text == "null" { return .null }
            default: break
            }
            return .string(text)
        }
    }
}
