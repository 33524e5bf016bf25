import CJansson
import CourierCodable

extension JSONValue {
    /// Parses `bytes` (UTF-8; a leading byte order mark is skipped).
    /// - Throws: ``JanssonError`` with line, column and offset, or a limit that was exceeded.
    public init(parsing bytes: [UInt8], options: JanssonOptions = .init()) throws(JanssonError) {
        let document = try JanssonDocument.parse(bytes, options: options)
        self = try Self.make(document.root, depth: 1, limit: options.maxDepth)
        withExtendedLifetime(document) {}
    }

    /// Copies a borrowed node (and everything under it) into Swift values.
    static func make(_ node: UnsafeMutablePointer<json_t>, depth: Int, limit: Int) throws(JanssonError)
        -> JSONValue
    {
        let type = courier_json_typeof(node)
        if depth > limit, type == JSON_OBJECT || type == JSON_ARRAY {
            throw JanssonError(.tooDeep, "the input nests deeper than \(limit) levels")
        }
        switch type {
        case JSON_OBJECT:
            var object = JSONObject()
            object.reserveCapacity(json_object_size(node))
            var iterator = json_object_iter(node)
            while let current = iterator {
                if let key = json_object_iter_key(current), let child = json_object_iter_value(current) {
                    let length = json_object_iter_key_len(current)
                    let name = String(
                        decoding: UnsafeRawBufferPointer(start: key, count: length), as: UTF8.self)
                    object.append(name, try make(child, depth: depth + 1, limit: limit))
                }
                iterator = json_object_iter_next(node, current)
            }
            return .object(object)
        case JSON_ARRAY:
            var array: [JSONValue] = []
            array.reserveCapacity(json_array_size(node))
            for index in 0..<json_array_size(node) {
                if let child = json_array_get(node, index) {
                    array.append(try make(child, depth: depth + 1, limit: limit))
                }
            }
            return .array(array)
        case JSON_STRING: return .string(JanssonNode.string(node))
        case JSON_INTEGER: return .int(Int64(json_integer_value(node)))
        case JSON_REAL: return .double(json_real_value(node))
        case JSON_TRUE: return .bool(true)
        case JSON_FALSE: return .bool(false)
        default: return .null
        }
    }
}
