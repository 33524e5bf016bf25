import CourierCore
import Foundation

/// One value being encoded: filled in by whichever container the value's
/// `encode(to:)` asks for, read once at the end. A reference, so that a
/// nested container writes into its parent's tree as it goes; fields and
/// elements are appended in place (no copy per write).
final class ParameterNode {
    private enum Kind { case unset, value, object, array }

    private var kind = Kind.unset
    private var value = ParameterValue.null
    private var fields: [(key: String, node: ParameterNode)] = []
    /// Where each key is in `fields`: a key written twice keeps its place.
    private var fieldIndex: [String: Int] = [:]
    private var elements: [ParameterNode] = []

    /// Writes a value.
    func set(_ value: ParameterValue) {
        kind = .value
        self.value = value
    }

    /// The value written, or `nil` when nothing was (its key is left out).
    func resolved() -> ParameterValue? {
        switch kind {
        case .unset: nil
        case .value: value
        case .object:
            .object(Parameters(fields.compactMap { field in field.node.resolved().map { (field.key, $0) } }))
        case .array: .array(elements.map { $0.resolved() ?? .null })
        }
    }

    /// The child for `key`, made when the object has none (a key written
    /// twice keeps its place and takes the later value).
    func child(_ key: String) -> ParameterNode {
        becomeObject()
        if let index = fieldIndex[key] { return fields[index].node }
        let node = ParameterNode()
        fieldIndex[key] = fields.count
        fields.append((key, node))
        return node
    }

    /// A new last element.
    func append() -> ParameterNode {
        becomeArray()
        let node = ParameterNode()
        elements.append(node)
        return node
    }

    /// Makes this an object (an empty one stays one).
    func becomeObject() {
        guard kind != .object else { return }
        kind = .object
        fields = []
        fieldIndex = [:]
    }

    /// Makes this an array (an empty one stays one).
    func becomeArray() {
        guard kind != .array else { return }
        kind = .array
        elements = []
    }

    /// The elements written so far.
    var count: Int { elements.count }
}

/// The `Encoder` behind ``ParametersEncoder``: writes into a node.
struct ParameterNodeEncoder: Encoder {
    let node: ParameterNode
    let options: ParametersEncoder
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedParameters<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedParameters(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleParameter(encoder: self) }

    /// An encoder for `child`, one key deeper.
    func nested(_ child: ParameterNode, _ key: any CodingKey) -> ParameterNodeEncoder {
        ParameterNodeEncoder(node: child, options: options, codingPath: codingPath + [key])
    }

    /// Writes `value`: the types a strategy covers by the strategy, the rest
    /// by their own `encode(to:)`.
    func encode(_ value: some Encodable) throws {
        switch value {
        case let date as Date: try encodeDate(date)
        case let data as Data: try encodeData(data)
        case let url as URL: node.set(.string(url.absoluteString))
        case let decimal as Decimal: node.set(.string(decimal.description))
        default: try value.encode(to: self)
        }
    }

    private func encodeDate(_ date: Date) throws {
        switch options.dates {
        case .deferredToDate: try date.encode(to: self)
        case .secondsSince1970: try write(date.timeIntervalSince1970)
        case .millisecondsSince1970:
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
            guard let whole = Int(exactly: milliseconds) else { throw notFinite(milliseconds) }
            node.set(.int(whole))
        case .iso8601: node.set(.string(date.formatted(.iso8601)))
        case .custom(let format): node.set(.string(try format(date)))
        }
    }

    private func encodeData(_ data: Data) throws {
        switch options.data {
        case .base64: node.set(.string(data.base64EncodedString()))
        case .deferredToData: try data.encode(to: self)
        case .custom(let format): node.set(.string(try format(data)))
        }
    }

    func write(_ value: Double) throws {
        guard value.isFinite else { throw notFinite(value) }
        node.set(.double(value))
    }

    func write(integer value: some BinaryInteger) {
        node.set(Int(exactly: value).map(ParameterValue.int) ?? .string("\(value)"))
    }

    func writeNil() {
        switch options.nils {
        case .null: node.set(.null)
        case .text(let text): node.set(.string(text))
        }
    }

    /// The key `name` is written under.
    func key(_ name: String) -> String {
        switch options.keys {
        case .useDefaultKeys: name
        case .convertToSnakeCase: Self.separated(name, by: "_")
        case .convertToKebabCase: Self.separated(name, by: "-")
        case .capitalized: name.prefix(1).uppercased() + name.dropFirst()
        case .uppercased: name.uppercased()
        case .lowercased: name.lowercased()
        case .custom(let spell): spell(name)
        }
    }

    /// `pageSizeURL` → `page_size_url`: a separator before each capital that
    /// starts a word (after a lowercase letter or a digit, or before a
    /// lowercase letter that follows a run of capitals), then lowercased.
    static func separated(_ name: String, by separator: Character) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let startsWord =
                    previous.isLowercase || previous.isNumber
                    || (previous.isUppercase && next?.isLowercase == true)
                if startsWord, previous != separator { result.append(separator) }
            }
            result += character.lowercased()
        }
        return result
    }

    private func notFinite(_ value: Double) -> EncodingError {
        EncodingError.invalidValue(
            value, .init(codingPath: codingPath, debugDescription: "\(value) is not a finite number"))
    }
}

private struct KeyedParameters<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ParameterNodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func child(_ key: Key) -> ParameterNodeEncoder {
        encoder.nested(encoder.node.child(encoder.key(key.stringValue)), key)
    }

    mutating func encodeNil(forKey key: Key) throws { child(key).writeNil() }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        child(key).node.set(.bool(value))
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        child(key).node.set(.string(value))
    }
    mutating func encode(_ value: Double, forKey key: Key) throws { try child(key).write(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try child(key).write(Double(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { child(key).write(integer: value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { child(key).write(integer: value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { child(key).write(integer: value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { child(key).write(integer: value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { child(key).write(integer: value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { child(key).write(integer: value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { child(key).write(integer: value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { child(key).write(integer: value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { child(key).write(integer: value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { child(key).write(integer: value) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws { try child(key).encode(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        child(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        child(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { child(ParameterKey("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }

    private func child(_ key: ParameterKey) -> ParameterNodeEncoder {
        encoder.nested(encoder.node.child(key.stringValue), key)
    }
}

private struct UnkeyedParameters: UnkeyedEncodingContainer {
    let encoder: ParameterNodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.node.count }

    private func next() -> ParameterNodeEncoder {
        encoder.nested(encoder.node.append(), ParameterKey(index: count))
    }

    mutating func encodeNil() throws { next().writeNil() }
    mutating func encode(_ value: Bool) throws { next().node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { next().node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { try next().write(value) }
    mutating func encode(_ value: Float) throws { try next().write(Double(value)) }
    mutating func encode(_ value: Int) throws { next().write(integer: value) }
    mutating func encode(_ value: Int8) throws { next().write(integer: value) }
    mutating func encode(_ value: Int16) throws { next().write(integer: value) }
    mutating func encode(_ value: Int32) throws { next().write(integer: value) }
    mutating func encode(_ value: Int64) throws { next().write(integer: value) }
    mutating func encode(_ value: UInt) throws { next().write(integer: value) }
    mutating func encode(_ value: UInt8) throws { next().write(integer: value) }
    mutating func encode(_ value: UInt16) throws { next().write(integer: value) }
    mutating func encode(_ value: UInt32) throws { next().write(integer: value) }
    mutating func encode(_ value: UInt64) throws { next().write(integer: value) }
    mutating func encode(_ value: some Encodable) throws { try next().encode(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { next() }
}

private struct SingleParameter: SingleValueEncodingContainer {
    let encoder: ParameterNodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.writeNil() }
    mutating func encode(_ value: Bool) throws { encoder.node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { try encoder.write(value) }
    mutating func encode(_ value: Float) throws { try encoder.write(Double(value)) }
    mutating func encode(_ value: Int) throws { encoder.write(integer: value) }
    mutating func encode(_ value: Int8) throws { encoder.write(integer: value) }
    mutating func encode(_ value: Int16) throws { encoder.write(integer: value) }
    mutating func encode(_ value: Int32) throws { encoder.write(integer: value) }
    mutating func encode(_ value: Int64) throws { encoder.write(integer: value) }
    mutating func encode(_ value: UInt) throws { encoder.write(integer: value) }
    mutating func encode(_ value: UInt8) throws { encoder.write(integer: value) }
    mutating func encode(_ value: UInt16) throws { encoder.write(integer: value) }
    mutating func encode(_ value: UInt32) throws { encoder.write(integer: value) }
    mutating func encode(_ value: UInt64) throws { encoder.write(integer: value) }
    mutating func encode(_ value: some Encodable) throws { try encoder.encode(value) }
}

/// A key for a super encoder or an array's element, in coding paths.
private struct ParameterKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init(index: Int) {
        stringValue = "\(index)"
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}
