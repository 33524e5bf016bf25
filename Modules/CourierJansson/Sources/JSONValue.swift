import CJansson

/// A JSON document as a Swift value: parsed once by jansson, then plain,
/// `Sendable` data with no C memory behind it.
///
/// Integers stay exact 64-bit integers (never squeezed through `Double`),
/// objects keep their keys in the order the document had them, and strings
/// may contain NUL.
///
/// ```swift
/// let value = try JSONValue(parsing: Array(#"{"code":0,"data":{"id":7}}"#.utf8))
/// value["data"]?["id"]?.integerValue   // 7
/// value.serialized(sortedKeys: true)   // bytes
/// ```
public enum JSONValue: Sendable, Equatable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case real(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, keys in document order.
    case object(JSONObject)

    /// Parses `bytes` (UTF-8; a leading byte order mark is skipped).
    /// - Throws: ``JanssonError`` with line, column and offset, or a limit that was exceeded.
    public init(parsing bytes: [UInt8], options: JanssonOptions = .init()) throws(JanssonError) {
        let document = try JanssonDocument.parse(bytes, options: options)
        self = try Self.make(document.root, depth: 1, limit: options.maxDepth)
        withExtendedLifetime(document) {}
    }

    /// Copies a borrowed node (and everything under it) into Swift values.
    static func make(_ node: UnsafeMutablePointer<json_t>, depth: Int, limit: Int) throws(JanssonError)
        -> JSONValue
    {
        let type = courier_json_typeof(node)
        if depth > limit, type == JSON_OBJECT || type == JSON_ARRAY {
            throw JanssonError(.tooDeep, "the input nests deeper than \(limit) levels")
        }
        switch type {
        case JSON_OBJECT:
            var object = JSONObject()
            object.reserveCapacity(json_object_size(node))
            var iterator = json_object_iter(node)
            while let current = iterator {
                if let key = json_object_iter_key(current), let child = json_object_iter_value(current) {
                    let length = json_object_iter_key_len(current)
                    let name = String(
                        decoding: UnsafeRawBufferPointer(start: key, count: length), as: UTF8.self)
                    object.append(name, try make(child, depth: depth + 1, limit: limit))
                }
                iterator = json_object_iter_next(node, current)
            }
            return .object(object)
        case JSON_ARRAY:
            var array: [JSONValue] = []
            array.reserveCapacity(json_array_size(node))
            for index in 0..<json_array_size(node) {
                if let child = json_array_get(node, index) {
                    array.append(try make(child, depth: depth + 1, limit: limit))
                }
            }
            return .array(array)
        case JSON_STRING: return .string(JanssonNode.string(node))
        case JSON_INTEGER: return .integer(Int64(json_integer_value(node)))
        case JSON_REAL: return .real(json_real_value(node))
        case JSON_TRUE: return .bool(true)
        case JSON_FALSE: return .bool(false)
        default: return .null
        }
    }

    // MARK: - Typed access

    /// Whether the value is `null`.
    public var isNull: Bool { self == .null }
    /// The Boolean, if the value is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The integer, if the value is an integer.
    public var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// The number as a `Double`, for integers and reals alike.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }
    /// The string, if the value is one.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The elements, if the value is an array.
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The object, if the value is one.
    public var objectValue: JSONObject? { if case .object(let value) = self { value } else { nil } }

    /// The member named `key`, if the value is an object that has it.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// The element at `index`, if the value is an array that long.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The compact JSON text.
    public var description: String { String(decoding: serialized(), as: UTF8.self) }
}

/// A JSON object: members in document order, looked up by key. Equal to
/// another object with the same members in any order, as JSON defines it.
public struct JSONObject: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    private var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    /// An empty object.
    public init() {}

    /// An object from literal members, in the order written.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { append(key, value) }
    }

    /// The number of members.
    public var count: Int { keys.count }

    /// The member named `key`; setting `nil` removes it.
    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            if let newValue {
                append(key, newValue)
            } else if values.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// Adds a member at the end, or replaces the value of an existing key in place.
    public mutating func append(_ key: String, _ value: JSONValue) {
        if values.updateValue(value, forKey: key) == nil { keys.append(key) }
    }

    mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
    }

    /// The members in document order.
    public func makeIterator() -> some IteratorProtocol<(key: String, value: JSONValue)> {
        keys.lazy.compactMap { key in values[key].map { (key: key, value: $0) } }.makeIterator()
    }

    /// Equal members, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.values == rhs.values }
}
