import CJansson

/// Reading scalar nodes of a jansson tree.
enum JanssonNode {
    /// A string node's bytes as a `String`; NUL inside is kept.
    static func string(_ node: UnsafeMutablePointer<json_t>) -> String {
        guard let bytes = json_string_value(node) else { return "" }
        return String(
            decoding: UnsafeRawBufferPointer(start: bytes, count: json_string_length(node)), as: UTF8.self)
    }

    /// A short name of the node's type, for error messages.
    static func typeName(_ node: UnsafeMutablePointer<json_t>) -> String {
        switch courier_json_typeof(node) {
        case JSON_OBJECT: "an object"
        case JSON_ARRAY: "an array"
        case JSON_STRING: "a string"
        case JSON_INTEGER: "an integer"
        case JSON_REAL: "a number"
        case JSON_TRUE, JSON_FALSE: "a Boolean"
        default: "null"
        }
    }
}
