import CJansson
import Foundation

/// The `Decoder` walking a jansson tree. One instance serves a whole decode:
/// it moves to a child node and back (``descend(into:key:_:)``), keeping the
/// coding path as a stack, instead of allocating a decoder per value.
/// Containers remember their own node and how deep the path was when they
/// were made; Codable's strictly nested use keeps that prefix valid.
final class JanssonDecoding: Decoder, SingleValueDecodingContainer {
    struct Settings {
        var keys: JanssonDecoder.KeyDecodingStrategy
        var dates: JanssonDecoder.DateDecodingStrategy
        var data: JanssonDecoder.DataDecodingStrategy
        var floats: JanssonDecoder.NonConformingFloatDecodingStrategy
        var maxDepth: Int
    }

    /// The current node, borrowed from `document`, which this decoder keeps alive.
    /// Unchecked exclusivity: one decode walks the tree on one thread, and
    /// ``descend(into:key:_:)`` restores what it changed before returning.
    @exclusivity(unchecked) private(set) var node: UnsafeMutablePointer<json_t>
    let document: JanssonDocument
    let settings: Settings
    /// The keys from the root to ``node`` (unchecked exclusivity, as ``node``).
    @exclusivity(unchecked) private(set) var path: [any CodingKey]

    init(
        node: UnsafeMutablePointer<json_t>, document: JanssonDocument, settings: Settings,
        path: [any CodingKey] = []
    ) {
        self.node = node
        self.document = document
        self.settings = settings
        self.path = path
    }

    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// Levels from the root, the root being 1.
    var depth: Int { path.count + 1 }

    /// Runs `body` with this decoder moved to `child`, then moves back.
    func descend<T>(
        into child: UnsafeMutablePointer<json_t>, key: any CodingKey, _ body: (JanssonDecoding) throws -> T
    ) rethrows -> T {
        let saved = node
        node = child
        path.append(key)
        defer {
            node = saved
            path.removeLast()
        }
        return try body(self)
    }

    /// A separate decoder for a child node: for errors, nested containers and
    /// super decoders, which live apart from the walk.
    func child(_ node: UnsafeMutablePointer<json_t>, key: any CodingKey) -> JanssonDecoding {
        JanssonDecoding(node: node, document: document, settings: settings, path: path + [key])
    }

    // MARK: - Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard courier_json_typeof(node) == JSON_OBJECT else { throw mismatch([String: Any].self) }
        try checkDepth()
        return KeyedDecodingContainer(JanssonKeyedContainer<Key>(decoder: self, node: node))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard courier_json_typeof(node) == JSON_ARRAY else { throw mismatch([Any].self) }
        try checkDepth()
        return JanssonUnkeyedContainer(decoder: self, node: node)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    private func checkDepth() throws {
        guard depth <= settings.maxDepth else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath, debugDescription: "nested deeper than \(settings.maxDepth) levels"
                ))
        }
    }

    // MARK: - Single value

    func decodeNil() -> Bool { courier_json_typeof(node) == JSON_NULL }

    func decode(_ type: Bool.Type) throws -> Bool {
        switch courier_json_typeof(node) {
        case JSON_TRUE: return true
        case JSON_FALSE: return false
        default: throw mismatch(type)
        }
    }

    func decode(_ type: String.Type) throws -> String {
        guard courier_json_typeof(node) == JSON_STRING else { throw mismatch(type) }
        return JanssonNode.string(node)
    }

    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float {
        let value = try floatingPoint(Double.self)
        let narrowed = Float(value)
        // A finite number that overflows Float, or a non-zero one that underflows to zero.
        guard narrowed.isFinite || !value.isFinite, narrowed != 0 || value == 0 else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription: "Parsed JSON number <\(value)> does not fit in Float."))
        }
        return narrowed
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(type) }

    // MARK: - Values

    /// Decodes `T`, with the special cases `JSONDecoder` makes for dates,
    /// data, URLs and decimals.
    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Date.self, let date = try unboxDate() as? T { return date }
        if T.self == Data.self, let data = try unboxData() as? T { return data }
        if T.self == URL.self {
            let text = try decode(String.self)
            guard let url = URL(string: text) as? T else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: codingPath, debugDescription: "Invalid URL string."))
            }
            return url
        }
        if T.self == Decimal.self, let decimal = try unboxDecimal() as? T { return decimal }
        // Arrays of strings and numbers, the commonest leaves: read straight
        // from the tree into an array sized once. The standard library's
        // generic Array.init(from:) would grow it append by append, each
        // growth looking its storage type up at run time.
        if T.self == [String].self, let strings = try scalarArray(String.self) as? T { return strings }
        if T.self == [Int].self, let integers = try scalarArray(Int.self) as? T { return integers }
        if T.self == [Double].self, let numbers = try scalarArray(Double.self) as? T { return numbers }
        // Only a converting key strategy treats [String: V] differently; the
        // dynamic cast is skipped otherwise, as it costs on every nested value.
        if case .useDefaultKeys = settings.keys {
        } else if let dictionary = T.self as? any StringKeyedDictionary.Type,
            let value = try dictionary.decodeKeepingKeys(self) as? T
        {
            return value
        }
        return try T(from: self)
    }

    /// The current array's elements as `Element` (a string or a number
    /// type), each read where it lies; an element of another type fails as
    /// it would through the unkeyed container, at its index.
    private func scalarArray<Element: Decodable>(_ type: Element.Type) throws -> [Element] {
        guard courier_json_typeof(node) == JSON_ARRAY else { throw mismatch([Element].self) }
        try checkDepth()
        let array = node
        let count = json_array_size(array)
        var result: [Element] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            guard let element = json_array_get(array, index) else { break }
            if Element.self == String.self, courier_json_typeof(element) == JSON_STRING,
                let text = JanssonNode.string(element) as? Element
            {
                result.append(text)
            } else if Element.self == Double.self, courier_json_typeof(element) == JSON_REAL,
                let number = json_real_value(element) as? Element
            {
                result.append(number)
            } else if Element.self == Int.self, courier_json_typeof(element) == JSON_INTEGER,
                let exact = Int(exactly: json_integer_value(element)), let integer = exact as? Element
            {
                result.append(integer)
            } else {
                // Integers, conversions and every error: the general path.
                result.append(
                    try descend(into: element, key: IndexKey(intValue: index)) { try $0.decode(type) })
            }
        }
        return result
    }

    private func unboxDate() throws -> Date {
        switch settings.dates {
        case .deferredToDate: return try Date(from: self)
        case .secondsSince1970: return Date(timeIntervalSince1970: try decode(Double.self))
        case .millisecondsSince1970: return Date(timeIntervalSince1970: try decode(Double.self) / 1000)
        case .iso8601:
            let text = try decode(String.self)
            guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        case .custom(let read): return try read(self)
        }
    }

    private func unboxData() throws -> Data {
        switch settings.data {
        case .deferredToData: return try Data(from: self)
        case .base64:
            guard let data = Data(base64Encoded: try decode(String.self)) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: codingPath, debugDescription: "Encountered Data is not valid Base64."))
            }
            return data
        case .custom(let read): return try read(self)
        }
    }

    private func unboxDecimal() throws -> Decimal {
        switch courier_json_typeof(node) {
        case JSON_INTEGER: return Decimal(Int64(json_integer_value(node)))
        case JSON_REAL:
            let value = json_real_value(node)
            // Decimal holds about ±3.4e165, with exponents down to -128.
            guard abs(value) < 1e165, value == 0 || abs(value) > 1e-127,
                let decimal = Decimal(string: "\(value)")
            else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "Parsed JSON number <\(value)> does not fit in Decimal."))
            }
            return decimal
        default: throw mismatch(Decimal.self)
        }
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        switch courier_json_typeof(node) {
        case JSON_INTEGER:
            let value = Int64(json_integer_value(node))
            guard let exact = T(exactly: value) else { throw outOfRange(type, "\(value)") }
            return exact
        case JSON_REAL:
            let value = json_real_value(node)
            guard let exact = T(exactly: value) else { throw outOfRange(type, "\(value)") }
            return exact
        default: throw mismatch(type)
        }
    }

    private func floatingPoint(_ type: Double.Type) throws -> Double {
        switch courier_json_typeof(node) {
        case JSON_REAL: return json_real_value(node)
        case JSON_INTEGER: return Double(json_integer_value(node))
        case JSON_STRING:
            if case .convertFromString(let positive, let negative, let nan) = settings.floats {
                let text = JanssonNode.string(node)
                if text == positive { return .infinity }
                if text == negative { return -.infinity }
                if text == nan { return .nan }
            }
            throw mismatch(type)
        default: throw mismatch(type)
        }
    }

    // MARK: - Errors

    func mismatch(_ type: Any.Type) -> DecodingError {
        if courier_json_typeof(node) == JSON_NULL {
            return .valueNotFound(
                type,
                .init(
                    codingPath: codingPath, debugDescription: "Cannot get \(type) -- found null value instead"
                ))
        }
        return .typeMismatch(
            type,
            .init(
                codingPath: codingPath,
                debugDescription:
                    "Expected to decode \(type) but found \(JanssonNode.typeName(node)) instead."))
    }

    private func outOfRange(_ type: Any.Type, _ text: String) -> DecodingError {
        .dataCorrupted(
            .init(codingPath: codingPath, debugDescription: "Number <\(text)> does not fit in \(type)."))
    }
}

/// `[String: Value]`: decoded with its keys as written, whatever the key
/// strategy, as `JSONDecoder` does (the strategy still applies inside the values).
protocol StringKeyedDictionary {
    static func decodeKeepingKeys(_ decoder: JanssonDecoding) throws -> Self
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    static func decodeKeepingKeys(_ decoder: JanssonDecoding) throws -> Self {
        guard courier_json_typeof(decoder.node) == JSON_OBJECT else { throw decoder.mismatch(Self.self) }
        var result: [String: Value] = [:]
        var failure: (any Error)?
        JanssonKeyedContainer<JanssonKey>.forEachMember(decoder.node) { key, node in
            guard failure == nil else { return }
            do {
                result[key] = try decoder.descend(into: node, key: JanssonKey(key)) {
                    try $0.unbox(Value.self)
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return result
    }
}
