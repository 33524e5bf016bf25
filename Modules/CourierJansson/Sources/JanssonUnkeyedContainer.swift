import CJansson

/// An array's elements, read in order.
struct JanssonUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JanssonDecoding
    private(set) var currentIndex = 0
    let count: Int?

    init(decoder: JanssonDecoding) {
        self.decoder = decoder
        self.count = json_array_size(decoder.node)
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    /// The next element's decoder; moves past it.
    private mutating func next(_ type: Any.Type) throws -> JanssonDecoding {
        guard !isAtEnd, let node = json_array_get(decoder.node, currentIndex) else {
            throw DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: codingPath + [JanssonKey(index: currentIndex)],
                    debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return decoder.child(node, key: JanssonKey(index: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, let node = json_array_get(decoder.node, currentIndex) else {
            throw DecodingError.valueNotFound(
                Any?.self,
                .init(
                    codingPath: codingPath + [JanssonKey(index: currentIndex)],
                    debugDescription: "Unkeyed container is at end."))
        }
        guard courier_json_typeof(node) == JSON_NULL else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: String.Type) throws -> String {
        if !isAtEnd, let node = json_array_get(decoder.node, currentIndex),
            courier_json_typeof(node) == JSON_STRING
        {
            currentIndex += 1
            return JanssonNode.string(node)
        }
        return try next(type).decode(type)
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        if !isAtEnd, let node = json_array_get(decoder.node, currentIndex),
            courier_json_typeof(node) == JSON_INTEGER,
            let value = Int(exactly: json_integer_value(node))
        {
            currentIndex += 1
            return value
        }
        return try next(type).decode(type)
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        if !isAtEnd, let node = json_array_get(decoder.node, currentIndex),
            courier_json_typeof(node) == JSON_REAL
        {
            currentIndex += 1
            return json_real_value(node)
        }
        return try next(type).decode(type)
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type).decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decode(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).unbox(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next(KeyedDecodingContainer<NestedKey>.self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next((any Decoder).self) }
}
