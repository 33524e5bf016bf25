import CJansson

/// Why JSON could not be read: a parse error with its position, or a limit.
public struct JanssonError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A stable identifier.
        public let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }
        /// A stable identifier.
        public var description: String { rawValue }

        /// The bytes are not JSON (syntax, truncation, an empty input).
        public static let syntax = Kind("syntax")
        /// A string is not valid UTF-8.
        public static let invalidUTF8 = Kind("invalidUTF8")
        /// An object has the same key twice and duplicates are refused.
        public static let duplicateKey = Kind("duplicateKey")
        /// An integer does not fit in 64 bits.
        public static let numberOutOfRange = Kind("numberOutOfRange")
        /// The input is larger than the configured limit.
        public static let inputTooLarge = Kind("inputTooLarge")
        /// The input nests deeper than the configured limit.
        public static let tooDeep = Kind("tooDeep")
    }

    /// What kind of problem.
    public var kind: Kind
    /// A readable explanation.
    public var message: String
    /// The 1-based line of the problem, when parsing found it.
    public var line: Int?
    /// The 1-based column of the problem, when parsing found it.
    public var column: Int?
    /// The byte offset of the problem, when parsing found it.
    public var offset: Int?

    init(_ kind: Kind, _ message: String, line: Int? = nil, column: Int? = nil, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
    }

    init(parsing error: json_error_t, empty: Bool) {
        var copy = error
        let text = withUnsafeBytes(of: &copy.text) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let kind: Kind =
            switch courier_json_error_code(&copy) {
            case Int32(json_error_invalid_utf8.rawValue): .invalidUTF8
            case Int32(json_error_duplicate_key.rawValue): .duplicateKey
            case Int32(json_error_numeric_overflow.rawValue): .numberOutOfRange
            default: .syntax
            }
        self.init(
            kind, empty ? "the input is empty" : text, line: error.line > 0 ? Int(error.line) : nil,
            column: error.column > 0 ? Int(error.column) : nil,
            offset: error.position >= 0 ? Int(error.position) : nil)
    }

    /// `kind at line L, column C: message`.
    public var description: String {
        let place = line.map { " at line \($0), column \(column ?? 0)" } ?? ""
        return "\(kind)\(place): \(message)"
    }
}
