/// The shape of a `{code, msg, data}` response envelope and what counts as success.
///
/// Key names and nesting vary by server; each is configurable:
///
/// ```swift
/// EnvelopeFormat.standard                                  // {"code": 0, "msg": "", "data": …}
/// EnvelopeFormat(code: "status", message: ["desc"], data: "result.payload", successCodes: ["200"])
/// ```
///
/// Key paths are dot-separated (`result.payload`). The first message key that
/// is present wins, so `["msg", "message", "desc"]` reads any of them.
public struct EnvelopeFormat: Sendable, Hashable {
    /// What to do when the code says success but `data` is `null` or absent.
    ///
    /// An open set: more values may join in a minor release, so a `switch`
    /// over it needs a `default` branch.
    public struct MissingDataPolicy: Sendable, Hashable, CustomStringConvertible {
        /// The values, for an exhaustive `switch` inside the module.
        enum Kind: String, Sendable, Hashable {
            case decodeAsNull, fail
        }

        let kind: Kind
        /// The name as written in Swift, such as "decodeAsNull".
        public var description: String { kind.rawValue }

        /// Decode `null` into the model: fine for optional models and
        /// ``EmptyResponse``; any other model fails with a clear
        /// ``CourierError/Code/envelope`` error (the default).
        public static let decodeAsNull = Self(kind: .decodeAsNull)

        /// Always fail with ``CourierError/Code/envelope``.
        public static let fail = Self(kind: .fail)
    }

    /// How the envelope's code is compared with ``successCodes``.
    ///
    /// An open set: more values may join in a minor release, so a `switch`
    /// over it needs a `default` branch.
    public struct CodeMatching: Sendable, Hashable, CustomStringConvertible {
        /// The values, for an exhaustive `switch` inside the module.
        enum Kind: String, Sendable, Hashable {
            case strict, lenient
        }

        let kind: Kind
        /// The name as written in Swift, such as "strict".
        public var description: String { kind.rawValue }

        /// A number matches only a number and a string only a string (the default):
        /// a server that suddenly sends `"0"` for `0` is reported, not ignored.
        public static let strict = Self(kind: .strict)

        /// `"200"` and `200` are the same code.
        public static let lenient = Self(kind: .lenient)
    }

    /// The key path of the code.
    public var codePath: [String]
    /// Key paths for the message, tried in order.
    public var messagePaths: [[String]]
    /// The key path of the payload.
    public var dataPath: [String]
    /// Codes that mean success.
    public var successCodes: Set<EnvelopeCode>
    /// Null or missing `data` on success.
    public var missingData: MissingDataPolicy
    /// How codes are compared.
    public var codeMatching: CodeMatching

    /// Creates a format from dot-separated key paths.
    public init(
        code: String = "code",
        message: [String] = ["msg", "message", "desc"],
        data: String = "data",
        successCodes: Set<EnvelopeCode> = [0],
        missingData: MissingDataPolicy = .decodeAsNull,
        codeMatching: CodeMatching = .strict
    ) {
        self.codePath = Self.split(code)
        self.messagePaths = message.map(Self.split)
        self.dataPath = Self.split(data)
        self.successCodes = successCodes
        self.missingData = missingData
        self.codeMatching = codeMatching
    }

    /// `{"code": 0, "msg": …, "data": …}` with `0` meaning success.
    public static let standard = EnvelopeFormat()

    /// Whether a code means success under ``codeMatching``.
    public func isSuccess(_ code: EnvelopeCode) -> Bool {
        if successCodes.contains(code) { return true }
        guard codeMatching == .lenient else { return false }
        return successCodes.contains { $0.text == code.text }
    }

    private static func split(_ path: String) -> [String] {
        path.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
    }
}

/// An envelope code: servers send numbers or strings.
public enum EnvelopeCode: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral
{
    /// A numeric code.
    case int(Int)
    /// A string code.
    case string(String)

    /// An integer literal.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }

    /// The code as text (strings unquoted).
    public var text: String {
        switch self {
        case .int(let number): String(number)
        case .string(let text): text
        }
    }

    /// Numbers plain, strings quoted: `0`, `"200"`.
    public var description: String {
        switch self {
        case .int(let number): String(number)
        case .string(let text): "\"\(text)\""
        }
    }
}
