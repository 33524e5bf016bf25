@_spi(Decoding) import CourierCore

/// A coding key made from any string.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { self.stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Decodes `T` from the value at the key path in the decoder's user info.
struct ValueAtPath<T: Decodable>: Decodable {
    let value: T

    init(from decoder: any Decoder) throws {
        let path = decoder.userInfo[.courierKeyPath] as? [String] ?? []
        guard let last = path.last else {
            value = try T(from: decoder)
            return
        }
        var container = try decoder.container(keyedBy: AnyKey.self)
        for key in path.dropLast() {
            container = try container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(key))
        }
        value = try container.decode(T.self, forKey: AnyKey(last))
    }
}

/// Reads an envelope's code, message and data presence; decodes nothing else.
struct EnvelopeProbe: Decodable {
    let head: EnvelopeHead

    init(from decoder: any Decoder) throws {
        guard let format = decoder.userInfo[.courierEnvelopeFormat] as? EnvelopeFormat else {
            throw EnvelopeReadError(.notJSON, "no envelope format was given to the probe")
        }
        let root: KeyedDecodingContainer<AnyKey>
        do {
            root = try decoder.container(keyedBy: AnyKey.self)
        } catch DecodingError.typeMismatch {
            throw EnvelopeReadError(.notObject, "the body is JSON but not an object")
        }
        let code = try Self.readCode(root, path: format.codePath)
        var message: String?
        for path in format.messagePaths {
            if let found = try? Self.container(root, for: path),
                let text = try? found.container.decodeIfPresent(String.self, forKey: found.key)
            {
                message = text
                break
            }
        }
        var data = EnvelopeHead.DataPresence.missing
        if let found = try? Self.container(root, for: format.dataPath), found.container.contains(found.key) {
            data = (try? found.container.decodeNil(forKey: found.key)) == true ? .null : .present
        }
        head = EnvelopeHead(code: code, message: message, data: data)
    }

    private static func readCode(_ root: KeyedDecodingContainer<AnyKey>, path: [String]) throws
        -> EnvelopeCode
    {
        let name = path.joined(separator: ".")
        guard let found = try? container(root, for: path), found.container.contains(found.key) else {
            throw EnvelopeReadError(.missingCode, "the envelope has no \"\(name)\"")
        }
        if let number = try? found.container.decode(Int.self, forKey: found.key) { return .int(number) }
        if let text = try? found.container.decode(String.self, forKey: found.key) { return .string(text) }
        let kind =
            if (try? found.container.decodeNil(forKey: found.key)) == true {
                "null"
            } else if (try? found.container.decode(Double.self, forKey: found.key)) != nil {
                "a fractional number"
            } else if (try? found.container.decode(Bool.self, forKey: found.key)) != nil {
                "a boolean"
            } else {
                "an object or array"
            }
        throw EnvelopeReadError(.invalidCode, "\"\(name)\" is \(kind), not an integer or a string")
    }

    /// The container holding the last key of `path`, and that key.
    private static func container(_ root: KeyedDecodingContainer<AnyKey>, for path: [String]) throws
        -> (container: KeyedDecodingContainer<AnyKey>, key: AnyKey)
    {
        guard let last = path.last else { throw EnvelopeReadError(.missingCode, "empty key path") }
        var current = root
        for key in path.dropLast() {
            current = try current.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(key))
        }
        return (current, AnyKey(last))
    }
}
