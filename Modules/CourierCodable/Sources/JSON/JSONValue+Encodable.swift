extension JSONValue: Encodable {
    /// Writes the value through any `Encoder`, so a model that holds a
    /// `JSONValue` stays `Codable`.
    ///
    /// The members of an object come out in whatever order the encoder
    /// chooses (Foundation's `JSONEncoder` does not keep the written one). For
    /// bytes, ``serialized(sortedKeys:)`` keeps the order, is faster, and
    /// writes integers and reals exactly as this type holds them.
    public func encode(to encoder: any Encoder) throws {
        if case .array(let items) = self {
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        } else if case .object(let members) = self {
            var container = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in members { try container.encode(value, forKey: AnyKey(key)) }
        } else {
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let flag): try container.encode(flag)
            case .int(let number): try container.encode(number)
            case .double(let number): try container.encode(number)
            case .string(let text): try container.encode(text)
            case .null: try container.encodeNil()
            case .array, .object: break  // written above, as containers
            }
        }
    }
}
