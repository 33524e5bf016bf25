/// A JSON document as a Swift value: plain, `Sendable` data with no C memory
/// behind it. CourierJansson parses bytes into it in one pass
/// (`JSONValue(parsing:)`); any `Decoder` reads it too (``init(from:)``).
///
/// Integers stay exact 64-bit integers (never squeezed through `Double`),
/// objects keep their keys in the order the document had them, and strings
/// may contain NUL.
///
/// ```swift
/// let value = try JSONValue(parsing: Array(#"{"code":0,"data":{"id":7}}"#.utf8))
/// value["data"]?["id"]?.intValue   // 7
/// value.serialized(sortedKeys: true)   // bytes
/// ```
public enum JSONValue: Sendable, Equatable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, keys in document order.
    case object(JSONObject)

    // MARK: - Typed access

    /// Whether the value is `null`.
    public var isNull: Bool { self == .null }
    /// The Boolean, if the value is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The integer, if the value is one (``int(_:)``).
    public var intValue: Int64? { if case .int(let value) = self { value } else { nil } }
    /// The number as a `Double`, for integers and reals alike.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
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

    package mutating func reserveCapacity(_ count: Int) {
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
