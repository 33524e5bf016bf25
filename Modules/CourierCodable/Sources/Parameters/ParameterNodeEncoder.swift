import CourierCore
import Foundation

/// One value being encoded: filled in by whichever container the value's
/// `encode(to:)` asks for, read once at the end. A reference, so that a
/// nested container writes into its parent's tree as it goes.
final class ParameterNode {
    enum Content {
        case unset
        case value(ParameterValue)
        case object([(key: String, node: ParameterNode)])
        case array([ParameterNode])
    }

    var content = Content.unset

    /// The value written, or `nil` when nothing was (its key is left out).
    func resolved() -> ParameterValue? {
        switch content {
        case .unset: nil
        case .value(let value): value
        case .object(let fields):
            .object(Parameters(fields.compactMap { field in field.node.resolved().map { (field.key, $0) } }))
        case .array(let elements): .array(elements.map { $0.resolved() ?? .null })
        }
    }

    /// The child for `key`, made when the object has none (a key written
    /// twice keeps its place and takes the later value).
    func child(_ key: String) -> ParameterNode {
        var fields: [(key: String, node: ParameterNode)] = []
        if case .object(let existing) = content { fields = existing }
        if let found = fields.first(where: { $0.key == key }) { return found.node }
        let node = ParameterNode()
        fields.append((key, node))
        content = .object(fields)
        return node
    }

    /// A new last element.
    func append() -> ParameterNode {
        var elements: [ParameterNode] = []
        if case .array(let existing) = content { elements = existing }
        let node = ParameterNode()
        elements.append(node)
        content = .array(elements)
        return node
    }

    /// Makes this an object (an empty one stays one).
    func becomeObject() {
        if case .object = content { return }
        content = .object([])
    }

    /// Makes this an array (an empty one stays one).
    func becomeArray() {
        if case .array = content { return }
        content = .array([])
    }

    var count: Int {
        if case .array(let elements) = content { return elements.count }
        return 0
    }
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
        case let url as URL: node.content = .value(.string(url.absoluteString))
        case let decimal as Decimal: node.content = .value(.string(decimal.description))
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
            node.content = .value(.int(whole))
        case .iso8601: node.content = .value(.string(date.formatted(.iso8601)))
        case .custom(let format): node.content = .value(.string(try format(date)))
        }
    }

    private func encodeData(_ data: Data) throws {
        switch options.data {
        case .base64: node.content = .value(.string(data.base64EncodedString()))
        case .deferredToData: try data.encode(to: self)
        case .custom(let format): node.content = .value(.string(try format(data)))
        }
    }

    func write(_ value: Double) throws {
        guard value.isFinite else { throw notFinite(value) }
        node.content = .value(.double(value))
    }

    func write(integer value: some BinaryInteger) {
        node.content = .value(Int(exactly: value).map(ParameterValue.int) ?? .string("\(value)"))
    }

    func writeNil() {
        switch options.nils {
        case .null: node.content = .value(.null)
        case .text(let text): node.content = .value(.string(text))
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
        child(key).node.content = .value(.bool(value))
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        child(key).node.content = .value(.string(value))
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
    mutating func encode(_ value: Bool) throws { next().node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { next().node.content = .value(.string(value)) }
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
    mutating func encode(_ value: Bool) throws { encoder.node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.node.content = .value(.string(value)) }
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
