import CourierCore
import Foundation

/// A ``ResponseTransformer`` that replaces the body with the envelope's
/// payload (ACINetworking's `Transformer`): `{"code":0,"data":{…}}` → `{…}`.
///
/// Usually the decoder reads the payload in place and this is not needed; use
/// it when the payload goes to code that expects the bare JSON.
public struct EnvelopeUnwrapper: ResponseTransformer {
    /// The format whose ``EnvelopeFormat/dataPath`` is unwrapped.
    public let format: EnvelopeFormat

    /// Creates an unwrapper for a format.
    public init(format: EnvelopeFormat = .standard) { self.format = format }

    /// The payload's JSON bytes; `null` when the payload is null or absent.
    /// - Throws: `DecodingError` when the body is not JSON.
    public func transform(_ body: [UInt8]) throws -> [UInt8] {
        let tree = try JSONDecoder().decode(JSONTree.self, from: Data(JSONBytes.withoutBOM(body)))
        let payload = tree.value(at: format.dataPath) ?? .null
        return Array(try JSONEncoder().encode(payload))
    }
}

/// Any JSON value, keeping object key order and integer precision.
enum JSONTree: Codable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONTree])
    case object([(String, JSONTree)])

    init(from decoder: any Decoder) throws {
        if var list = try? decoder.unkeyedContainer() {
            var items: [JSONTree] = []
            while !list.isAtEnd { items.append(try list.decode(JSONTree.self)) }
            self = .array(items)
        } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(
                try object.allKeys.map { ($0.stringValue, try object.decode(JSONTree.self, forKey: $0)) })
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

    func encode(to encoder: any Encoder) throws {
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
        case .object(let pairs):
            var container = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in pairs { try container.encode(value, forKey: AnyKey(key)) }
        }
    }

    static func == (lhs: JSONTree, rhs: JSONTree) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The value at a key path through objects, `nil` when a key is absent.
    func value(at path: [String]) -> JSONTree? {
        var current = self
        for key in path {
            guard case .object(let pairs) = current, let next = pairs.first(where: { $0.0 == key })?.1 else {
                return nil
            }
            current = next
        }
        return current
    }
}
