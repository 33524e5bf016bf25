import CJansson

/// An array's elements, read in order.
struct JanssonUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JanssonDecoding
    /// The array, borrowed from the decoder's document.
    let node: UnsafeMutablePointer<json_t>
    /// How long the decoder's path was when this container was made.
    private let depth: Int
    private(set) var currentIndex = 0
    let count: Int?

    init(decoder: JanssonDecoding, node: UnsafeMutablePointer<json_t>) {
        self.decoder = decoder
        self.node = node
        self.depth = decoder.path.count
        self.count = json_array_size(node)
    }

    var codingPath: [any CodingKey] { Array(decoder.path.prefix(depth)) }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    /// The next element; moves past it.
    private mutating func nextElement(_ type: Any.Type) throws -> (UnsafeMutablePointer<json_t>, IndexKey) {
        guard !isAtEnd, let element = json_array_get(node, currentIndex) else {
            throw DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: codingPath + [IndexKey(intValue: currentIndex)],
                    debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return (element, IndexKey(intValue: currentIndex))
    }

    /// A separate decoder for the next element: nested containers, super decoders.
    private mutating func next(_ type: Any.Type) throws -> JanssonDecoding {
        let (element, key) = try nextElement(type)
        return decoder.child(element, key: key)
    }

    /// Decodes the next element with the shared decoder moved onto it.
    private mutating func descend<T>(_ type: Any.Type, _ body: (JanssonDecoding) throws -> T) throws -> T {
        let (element, key) = try nextElement(type)
        return try decoder.descend(into: element, key: key, body)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, let node = json_array_get(node, currentIndex) else {
            throw DecodingError.valueNotFound(
                Any?.self,
                .init(
                    codingPath: codingPath + [IndexKey(intValue: currentIndex)],
                    debugDescription: "Unkeyed container is at end."))
        }
        guard courier_json_typeof(node) == JSON_NULL else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: String.Type) throws -> String {
        if !isAtEnd, let node = json_array_get(node, currentIndex),
            courier_json_typeof(node) == JSON_STRING
        {
            currentIndex += 1
            return JanssonNode.string(node)
        }
        return try descend(type) { try $0.decode(type) }
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        if !isAtEnd, let node = json_array_get(node, currentIndex),
            courier_json_typeof(node) == JSON_INTEGER,
            let value = Int(exactly: json_integer_value(node))
        {
            currentIndex += 1
            return value
        }
        return try descend(type) { try $0.decode(type) }
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        if !isAtEnd, let node = json_array_get(node, currentIndex),
            courier_json_typeof(node) == JSON_REAL
        {
            currentIndex += 1
            return json_real_value(node)
        }
        return try descend(type) { try $0.decode(type) }
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try descend(type) { try $0.decode(type) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try descend(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try descend(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try descend(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try descend(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try descend(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try descend(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try descend(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try descend(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try descend(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try descend(type) { try $0.decode(type) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try descend(type) { try $0.unbox(type) }
    }

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

/// An array index as a coding key; its text is made only when asked for.
struct IndexKey: CodingKey {
    let index: Int
    init(intValue: Int) { self.index = intValue }
    init?(stringValue: String) { nil }
    var intValue: Int? { index }
    var stringValue: String { "Index \(index)" }
}
