import Foundation

/// Any JSON value: the contract files' building block, and the bodies the
/// server answers with.
public indirect enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without a fraction or exponent that fits 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: JSONKey.self) {
            var object: [String: JSONValue] = [:]
            for key in container.allKeys {
                object[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
            }
            self = .object(object)
        } else if var list = try? decoder.unkeyedContainer() {
            var array: [JSONValue] = []
            while !list.isAtEnd { array.append(try list.decode(JSONValue.self)) }
            self = .array(array)
        } else {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                self = .null
            } else if let flag = try? value.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? value.decode(Int64.self) {
                self = .int(number)
            } else if let number = try? value.decode(Double.self) {
                self = .double(number)
            } else {
                self = .string(try value.decode(String.self))
            }
        }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .int(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .double(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let object):
            var container = encoder.container(keyedBy: JSONKey.self)
            for (key, value) in object { try container.encode(value, forKey: JSONKey(key)) }
        }
    }

    /// Parses JSON bytes.
    /// - Throws: `DecodingError` for malformed JSON.
    public static func parse(_ bytes: some Collection<UInt8>) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// Compact JSON with sorted keys: the same value always gives the same bytes.
    public var jsonBytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map(Array.init) ?? Array("null".utf8)
    }

    /// The compact JSON text.
    public var description: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// The JSON type's name, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Whether `self` contains `subset`: objects by key (recursively), arrays
    /// element by element in order with equal length, scalars by equality
    /// (numbers compare by value).
    func contains(_ subset: JSONValue) -> Bool {
        switch (self, subset) {
        case (.object(let whole), .object(let part)):
            return part.allSatisfy { key, value in whole[key].map { $0.contains(value) } ?? false }
        case (.array(let whole), .array(let part)):
            return whole.count == part.count && zip(whole, part).allSatisfy { $0.contains($1) }
        default:
            return self.numericallyEquals(subset)
        }
    }

    /// Equality where `1` and `1.0` are the same number.
    func numericallyEquals(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): Double(a) == b
        case (.object(let a), .object(let b)):
            a.count == b.count
                && a.allSatisfy { key, value in b[key].map { value.numericallyEquals($0) } ?? false }
        case (.array(let a), .array(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.numericallyEquals($1) }
        default: self == other
        }
    }
}

/// A coding key made from any string.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { self.stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
