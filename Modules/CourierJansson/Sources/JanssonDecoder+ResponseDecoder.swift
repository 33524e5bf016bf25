import CJansson
import CourierCodable
@_spi(Decoding) public import CourierCore

/// `JanssonDecoder` as the pipeline's decoder: the envelope stage parses the
/// body once, reads `code` and `msg` from the tree, and hands the tree on in
/// ``EnvelopeHead/parsedBody``, so the payload is decoded without a second
/// parse — and on a business error it is never decoded at all.
extension JanssonDecoder: ResponseDecoder {
    /// Decodes the value at `path` (object keys; empty means the root).
    public func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], at path: [String]) throws -> T {
        if path.isEmpty { return try decode(type, from: body) }
        let document: JanssonDocument
        do {
            document = try JanssonDocument.parse(body, options: options)
        } catch let error where error.kind == .numberOutOfRange {
            return try codableFallback.decode(type, from: body, at: path)
        } catch {
            throw Self.corrupted(error)
        }
        return try decode(type, in: document, at: path)
    }

    /// Decodes from the tree the envelope stage kept, when it kept one.
    @_spi(Decoding) public func decode<T: Decodable>(
        _ type: T.Type, from body: [UInt8], at path: [String], envelope: EnvelopeHead
    )
        throws -> T
    {
        guard let document = envelope.parsedBody as? JanssonDocument else {
            return try decode(type, from: body, at: path)
        }
        return try decode(type, in: document, at: path)
    }

    /// Parses once and reads the envelope's code, message and data presence.
    @_spi(Decoding) public func readEnvelope(_ body: [UInt8], format: EnvelopeFormat) throws -> EnvelopeHead {
        let document: JanssonDocument
        do {
            document = try JanssonDocument.parse(body, options: options)
        } catch let error where error.kind == .numberOutOfRange {
            // An integer beyond 64 bits somewhere in the body: JSONDecoder reads it.
            return try codableFallback.readEnvelope(body, format: format)
        } catch {
            throw EnvelopeReadError(
                .notJSON, body.isEmpty ? "the body is empty" : "the body is not JSON: \(error)")
        }
        guard courier_json_typeof(document.root) == JSON_OBJECT else {
            throw EnvelopeReadError(.notObject, "the body is JSON but not an object")
        }
        let code = try EnvelopeTree.code(in: document.root, path: format.codePath)
        var message: String?
        for path in format.messagePaths {
            if let node = EnvelopeTree.node(in: document.root, path: path),
                courier_json_typeof(node) == JSON_STRING
            {
                message = JanssonNode.string(node)
                break
            }
        }
        let data: EnvelopeHead.DataPresence =
            switch EnvelopeTree.node(in: document.root, path: format.dataPath).map({ courier_json_typeof($0) }
            ) {
            case nil: .missing
            case JSON_NULL: .null
            default: .present
            }
        return EnvelopeHead(code: code, message: message, data: data, parsedBody: document)
    }
}

extension JanssonDecoder {
    /// `JSONDecoder` with the same strategies, for bodies jansson cannot hold.
    var codableFallback: CodableDecoder {
        let decoder = self
        return CodableDecoder(configure: { decoder.configure($0) })
    }
}

extension ResponseDecoder where Self == JanssonDecoder {
    /// jansson with `JSONDecoder`'s default strategies.
    public static var jansson: JanssonDecoder { JanssonDecoder() }
}

/// Reading an envelope's parts from a jansson tree by key path.
enum EnvelopeTree {
    /// The node at `path`, through objects only.
    static func node(in root: UnsafeMutablePointer<json_t>, path: [String]) -> UnsafeMutablePointer<json_t>? {
        var node = root
        for key in path {
            guard courier_json_typeof(node) == JSON_OBJECT,
                let child = json_object_getn(node, key, key.utf8.count)
            else { return nil }
            node = child
        }
        return node
    }

    static func code(in root: UnsafeMutablePointer<json_t>, path: [String]) throws -> EnvelopeCode {
        // Only error messages name the path: joined when one is thrown.
        var name: String { path.joined(separator: ".") }
        guard let node = node(in: root, path: path) else {
            throw EnvelopeReadError(.missingCode, "the envelope has no \"\(name)\"")
        }
        switch courier_json_typeof(node) {
        case JSON_INTEGER:
            guard let value = Int(exactly: json_integer_value(node)) else {
                throw EnvelopeReadError(.invalidCode, "\"\(name)\" does not fit in an Int")
            }
            return .int(value)
        case JSON_STRING: return .string(JanssonNode.string(node))
        case JSON_REAL:
            let value = json_real_value(node)
            if let exact = Int(exactly: value) { return .int(exact) }
            throw EnvelopeReadError(
                .invalidCode, "\"\(name)\" is a fractional number, not an integer or a string")
        default:
            let kind = courier_json_typeof(node) == JSON_NULL ? "null" : JanssonNode.typeName(node)
            throw EnvelopeReadError(.invalidCode, "\"\(name)\" is \(kind), not an integer or a string")
        }
    }
}
