/// How parameters become `key=value` pairs in a query string or a
/// `application/x-www-form-urlencoded` body.
///
/// The defaults, written down so servers can rely on them:
/// - arrays use brackets: `tags[]=a&tags[]=b`;
/// - nested objects use brackets: `filter[min]=3`;
/// - booleans are `true`/`false`;
/// - `null` values are left out;
/// - keys keep their written order;
/// - everything except RFC 3986 unreserved characters (`A–Z a–z 0–9 - . _ ~`)
///   is percent-encoded as UTF-8, spaces as `%20`.
public struct ParameterEncoding: Sendable, Hashable {
    /// How array elements are keyed.
    ///
    /// An open set: more values may join in a minor release, so a `switch`
    /// over it needs a `default` branch.
    public struct ArrayStyle: Sendable, Hashable, CustomStringConvertible {
        /// The values, for an exhaustive `switch` inside the module.
        enum Kind: String, Sendable, Hashable {
            case brackets, repeatKey, indexed, commaSeparated
        }

        let kind: Kind
        /// The name as written in Swift, such as "brackets".
        public var description: String { kind.rawValue }

        /// `tags[]=a&tags[]=b` (the default).
        public static let brackets = Self(kind: .brackets)

        /// `tags=a&tags=b`.
        public static let repeatKey = Self(kind: .repeatKey)

        /// `tags[0]=a&tags[1]=b`.
        public static let indexed = Self(kind: .indexed)

        /// `tags=a,b` (nested values inside are not allowed).
        public static let commaSeparated = Self(kind: .commaSeparated)
    }

    /// How booleans are written.
    ///
    /// An open set: more values may join in a minor release, so a `switch`
    /// over it needs a `default` branch.
    public struct BoolStyle: Sendable, Hashable, CustomStringConvertible {
        /// The values, for an exhaustive `switch` inside the module.
        enum Kind: String, Sendable, Hashable {
            case literal, numeric
        }

        let kind: Kind
        /// The name as written in Swift, such as "literal".
        public var description: String { kind.rawValue }

        /// `true` / `false` (the default).
        public static let literal = Self(kind: .literal)

        /// `1` / `0`.
        public static let numeric = Self(kind: .numeric)
    }

    /// What happens to `null`.
    ///
    /// An open set: more values may join in a minor release, so a `switch`
    /// over it needs a `default` branch.
    public struct NullStyle: Sendable, Hashable, CustomStringConvertible {
        /// The values, for an exhaustive `switch` inside the module.
        enum Kind: String, Sendable, Hashable {
            case omit, emptyValue
        }

        let kind: Kind
        /// The name as written in Swift, such as "omit".
        public var description: String { kind.rawValue }

        /// The key is left out (the default).
        public static let omit = Self(kind: .omit)

        /// The key is sent with an empty value: `key=`.
        public static let emptyValue = Self(kind: .emptyValue)
    }

    /// How array elements are keyed.
    public var arrayStyle: ArrayStyle
    /// How booleans are written.
    public var boolStyle: BoolStyle
    /// What happens to `null`.
    public var nullStyle: NullStyle

    /// Creates an encoding; every argument defaults to the documented default.
    public init(
        arrayStyle: ArrayStyle = .brackets, boolStyle: BoolStyle = .literal, nullStyle: NullStyle = .omit
    ) {
        self.arrayStyle = arrayStyle
        self.boolStyle = boolStyle
        self.nullStyle = nullStyle
    }

    /// Brackets, literal booleans, nulls left out.
    public static let `default` = ParameterEncoding()

    /// The flattened `(key, value)` pairs, not yet percent-encoded.
    public func flatten(_ parameters: Parameters) throws(CourierError) -> [(String, String)] {
        var out: [(String, String)] = []
        for (key, value) in parameters { try flatten(value, key: key, into: &out) }
        return out
    }

    /// `k1=v1&k2=v2`, percent-encoded.
    public func encode(_ parameters: Parameters) throws(CourierError) -> String {
        if parameters.isEmpty { return "" }
        return try flatten(parameters)
            .map { "\(PercentEncoding.escape($0.0))=\(PercentEncoding.escape($0.1))" }
            .joined(separator: "&")
    }

    private func flatten(_ value: ParameterValue, key: String, into out: inout [(String, String)])
        throws(CourierError)
    {
        switch value {
        case .string(let text): out.append((key, text))
        case .int(let number): out.append((key, String(number)))
        case .double(let number): out.append((key, Self.text(number)))
        case .bool(let flag):
            out.append((key, boolStyle == .literal ? (flag ? "true" : "false") : (flag ? "1" : "0")))
        case .null:
            if nullStyle == .emptyValue { out.append((key, "")) }
        case .object(let nested):
            for (innerKey, innerValue) in nested {
                try flatten(innerValue, key: "\(key)[\(innerKey)]", into: &out)
            }
        case .array(let elements):
            switch arrayStyle.kind {
            case .brackets:
                for element in elements { try flatten(element, key: "\(key)[]", into: &out) }
            case .repeatKey:
                for element in elements { try flatten(element, key: key, into: &out) }
            case .indexed:
                for (index, element) in elements.enumerated() {
                    try flatten(element, key: "\(key)[\(index)]", into: &out)
                }
            case .commaSeparated:
                var texts: [String] = []
                for element in elements {
                    var single: [(String, String)] = []
                    if case .array = element { throw Self.nestedInComma(key) }
                    if case .object = element { throw Self.nestedInComma(key) }
                    try flatten(element, key: key, into: &single)
                    texts += single.map(\.1)
                }
                out.append((key, texts.joined(separator: ",")))
            }
        }
    }

    private static func nestedInComma(_ key: String) -> CourierError {
        CourierError(
            .invalidRequest, stage: .build,
            message: "parameter \(key): comma-separated arrays cannot hold arrays or objects")
    }

    /// Whole doubles print without a fraction (`2`, not `2.0`).
    private static func text(_ number: Double) -> String {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
            return String(Int64(number))
        }
        return String(number)
    }
}

/// RFC 3986 percent-encoding over UTF-8.
package enum PercentEncoding {
    /// Escapes every byte except the unreserved characters `A–Z a–z 0–9 - . _ ~`.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%"
                out += hexDigit(byte >> 4)
                out += hexDigit(byte & 0xF)
            }
        }
        return out
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> String {
        String(UnicodeScalar(nibble < 10 ? nibble + 48 : nibble + 55))
    }
}
