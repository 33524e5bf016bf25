/// How a query parameter, header or form field is matched.
///
/// In contract files: a bare string means `equalTo`; otherwise an object with
/// one key: `{"equalTo": "x"}`, `{"contains": "x"}`, `{"matches": "regex"}`,
/// `{"present": true}`, `{"absent": true}`.
public enum StringMatcher: Sendable, Hashable, CustomStringConvertible {
    /// The value equals the text.
    case equalTo(String)
    /// The value contains the text.
    case contains(String)
    /// The whole value matches the regular expression.
    case matches(String)
    /// The field is present, with any value.
    case present
    /// The field is absent.
    case absent

    /// Whether the (possibly absent) value matches.
    public func matches(_ value: String?) -> Bool {
        switch self {
        case .absent: return value == nil
        case .present: return value != nil
        case .equalTo(let expected): return value == expected
        case .contains(let part): return value.map { $0.contains(part) } ?? false
        case .matches(let pattern):
            guard let value, let regex = try? Regex(pattern) else { return false }
            return (try? regex.wholeMatch(in: value)) != nil
        }
    }

    /// `equalTo "x"`, `matches /r/`, …: for near-miss reports.
    /// The description without a value it compares to: for a secret field,
    /// whose expected value a report must not repeat. (A pattern says the
    /// shape a value must have, not a value: it stays.)
    var kind: String {
        switch self {
        case .equalTo: "equalTo \"***\""
        case .contains: "contains \"***\""
        case .matches: description
        case .present: "present"
        case .absent: "absent"
        }
    }

    /// What the matcher compares to, as reports show it.
    public var description: String {
        switch self {
        case .equalTo(let text): "equalTo \"\(text)\""
        case .contains(let text): "contains \"\(text)\""
        case .matches(let pattern): "matches /\(pattern)/"
        case .present: "present"
        case .absent: "absent"
        }
    }

    static func parse(_ value: JSONValue, file: String, path: String) throws(ContractError) -> StringMatcher {
        if case .string(let text) = value { return .equalTo(text) }
        let reader = try ContractReader(
            file: file, path: path, value: value,
            allowed: ["equalTo", "contains", "matches", "present", "absent"])
        guard reader.object.count == 1 else {
            throw reader.error(nil, "expected exactly one of equalTo, contains, matches, present, absent")
        }
        if let text = try reader.string("equalTo") { return .equalTo(text) }
        if let text = try reader.string("contains") { return .contains(text) }
        if let pattern = try reader.string("matches") {
            do {
                _ = try Regex(pattern)
            } catch {
                throw reader.error("matches", "invalid regular expression: \(error)")
            }
            return .matches(pattern)
        }
        if try reader.bool("present") == true { return .present }
        if try reader.bool("absent") == true { return .absent }
        throw reader.error(nil, "present and absent take true")
    }
}
