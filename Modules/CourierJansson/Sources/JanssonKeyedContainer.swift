import CJansson

/// An object's members, looked up in jansson's hash table by key.
struct JanssonKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JanssonDecoding
    /// The object, borrowed from the decoder's document.
    let node: UnsafeMutablePointer<json_t>
    /// How long the decoder's path was when this container was made.
    private let depth: Int
    /// Converted key → the key as the document spells it, when a key strategy
    /// other than the default is in use.
    private let converted: [String: String]?

    init(decoder: JanssonDecoding, node: UnsafeMutablePointer<json_t>) {
        self.decoder = decoder
        self.node = node
        self.depth = decoder.path.count
        switch decoder.settings.keys {
        case .useDefaultKeys:
            converted = nil
        case .convertFromSnakeCase:
            var map: [String: String] = [:]
            Self.forEachKey(node) { map[JanssonKeyConversion.fromSnakeCase($0)] = $0 }
            converted = map
        case .custom(let convert):
            var map: [String: String] = [:]
            let path = decoder.codingPath
            Self.forEachKey(node) { map[convert(path + [JanssonKey($0)]).stringValue] = $0 }
            converted = map
        }
    }

    var codingPath: [any CodingKey] { Array(decoder.path.prefix(depth)) }

    var allKeys: [Key] {
        var keys: [Key] = []
        if let converted {
            for name in converted.keys { if let key = Key(stringValue: name) { keys.append(key) } }
        } else {
            Self.forEachKey(node) { if let key = Key(stringValue: $0) { keys.append(key) } }
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { node(for: key) != nil }

    // MARK: - Lookup

    private func node(for key: Key) -> UnsafeMutablePointer<json_t>? {
        var name = key.stringValue
        if let converted {
            guard let original = converted[name] else { return nil }
            name = original
        }
        return name.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                json_object_getn(node, chars.baseAddress, chars.count)
            }
        }
    }

    private func require(_ key: Key) throws -> UnsafeMutablePointer<json_t> {
        guard let node = node(for: key) else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: codingPath,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return node
    }

    /// A separate decoder for the member: nested containers and super decoders.
    private func child(_ key: Key) throws -> JanssonDecoding { decoder.child(try require(key), key: key) }

    /// Decodes the member with the shared decoder moved onto it.
    private func descend<T>(_ key: Key, _ body: (JanssonDecoding) throws -> T) throws -> T {
        try decoder.descend(into: try require(key), key: key, body)
    }

    static func forEachKey(_ node: UnsafeMutablePointer<json_t>, _ body: (String) -> Void) {
        forEachMember(node) { key, _ in body(key) }
    }

    /// Calls `body` with each member's key and (borrowed) node, in document order.
    static func forEachMember(
        _ node: UnsafeMutablePointer<json_t>, _ body: (String, UnsafeMutablePointer<json_t>) -> Void
    ) {
        var iterator = json_object_iter(node)
        while let current = iterator {
            if let key = json_object_iter_key(current), let value = json_object_iter_value(current) {
                let length = json_object_iter_key_len(current)
                body(
                    String(decoding: UnsafeRawBufferPointer(start: key, count: length), as: UTF8.self), value)
            }
            iterator = json_object_iter_next(node, current)
        }
    }

    // MARK: - Decoding

    func decodeNil(forKey key: Key) throws -> Bool { courier_json_typeof(try require(key)) == JSON_NULL }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let node = try require(key)
        switch courier_json_typeof(node) {
        case JSON_TRUE: return true
        case JSON_FALSE: return false
        default: throw decoder.child(node, key: key).mismatch(type)
        }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let node = try require(key)
        guard courier_json_typeof(node) == JSON_STRING else {
            throw decoder.child(node, key: key).mismatch(type)
        }
        return JanssonNode.string(node)
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        let node = try require(key)
        if courier_json_typeof(node) == JSON_INTEGER, let value = Int(exactly: json_integer_value(node)) {
            return value
        }
        return try decoder.descend(into: node, key: key) { try $0.decode(type) }
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        let node = try require(key)
        if courier_json_typeof(node) == JSON_REAL { return json_real_value(node) }
        return try decoder.descend(into: node, key: key) { try $0.decode(type) }
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try descend(key) { try $0.decode(type) }
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try descend(key) { try $0.decode(type) }
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try descend(key) { try $0.decode(type) }
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try descend(key) { try $0.decode(type) }
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try descend(key) { try $0.decode(type) }
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try descend(key) { try $0.decode(type) }
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try descend(key) { try $0.decode(type) }
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try descend(key) { try $0.decode(type) }
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try descend(key) { try $0.decode(type) }
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try descend(key) { try $0.decode(type) }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try descend(key) { try $0.unbox(type) }
    }

    // One lookup instead of the default's three (contains, decodeNil, decode).

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let node = node(for: key), courier_json_typeof(node) != JSON_NULL else { return nil }
        guard courier_json_typeof(node) == JSON_STRING else {
            throw decoder.child(node, key: key).mismatch(type)
        }
        return JanssonNode.string(node)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let node = node(for: key), courier_json_typeof(node) != JSON_NULL else { return nil }
        return try decoder.descend(into: node, key: key) { try $0.decode(type) }
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let node = node(for: key), courier_json_typeof(node) != JSON_NULL else { return nil }
        return try decoder.descend(into: node, key: key) { try $0.decode(type) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let node = node(for: key), courier_json_typeof(node) != JSON_NULL else { return nil }
        return try decoder.descend(into: node, key: key) { try $0.decode(type) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let node = node(for: key), courier_json_typeof(node) != JSON_NULL else { return nil }
        return try decoder.descend(into: node, key: key) { try $0.unbox(type) }
    }

    // MARK: - Nesting

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { superDecoder(named: JanssonKey.super) }

    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(named: key) }

    /// As `JSONDecoder` does: a missing key gives a decoder over `null`.
    private func superDecoder(named key: any CodingKey) -> any Decoder {
        var name = key.stringValue
        let member = name.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                json_object_getn(node, chars.baseAddress, chars.count)
            }
        }
        // json_null() is jansson's static singleton: nothing to release.
        return decoder.child(member ?? json_null(), key: key)
    }
}

/// `JSONDecoder`'s key conversions, so both decoders map keys alike.
enum JanssonKeyConversion {
    /// `_user_first_name_` → `_userFirstName_`: leading and trailing underscores
    /// kept, the first word lowercased, later words capitalised.
    static func fromSnakeCase(_ key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        guard let last = key.lastIndex(where: { $0 != "_" }) else { return key }
        let words = key[first...last].split(separator: "_")
        guard words.count > 1 else { return key }
        let joined =
            words[0].lowercased()
            + words.dropFirst().map { word in word.prefix(1).uppercased() + word.dropFirst().lowercased() }
            .joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }
}
