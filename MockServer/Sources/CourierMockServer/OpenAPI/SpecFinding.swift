import Foundation

/// One way a request or a response breaks the OpenAPI document: shown in the
/// journal and the live page, and listed in a 4xx's problem details. An
/// `Error` too, for the answers that cannot be made (a `Prefer` the
/// document cannot honour).
public struct SpecFinding: Error, Sendable, Hashable, Codable {
    /// The rule broken, as `area/keyword`: `schema/required`,
    /// `parameter/missing`, `security/missing`, `body/content-type`.
    public var rule: String
    /// Where in the message (RFC 6901, over the request or response as
    /// parts): `/body/pets/0/name`, `/query/limit`, `/header/X-Api-Key`.
    public var pointer: String
    /// What is wrong, in a sentence.
    public var message: String
    /// The part of the document that says so: `file#/json/pointer`.
    public var source: String?

    /// Creates a finding.
    public init(rule: String, pointer: String, message: String, source: String? = nil) {
        self.rule = rule
        self.pointer = pointer
        self.message = message
        self.source = source
    }

    /// Whether the finding points at a body field named like a secret
    /// (``SecretMask/standard``): its message may repeat the value.
    var pointsAtSecretBodyField: Bool {
        guard pointer.hasPrefix("/body/"), let last = pointer.split(separator: "/").last else { return false }
        return SecretMask.standard.bodyFields.contains(
            SecretMask.normalized(JSONPointer.unescape(String(last))))
    }

    /// This finding without what its message says of the value (a secret).
    func withoutValue() -> SpecFinding {
        var copy = self
        copy.message = "the value does not satisfy \(rule) (a secret: not shown)"
        return copy
    }

    /// This finding with `value` (a secret) masked in its message.
    func hiding(_ value: JSONValue) -> SpecFinding {
        var copy = self
        let mask = SecretMask.standard.mask
        for shown in [SchemaValidator.short(value), value.description] {
            copy.message = copy.message.replacingOccurrences(of: shown, with: mask)
        }
        if case .string(let text) = value, !text.isEmpty {
            copy.message = copy.message.replacingOccurrences(of: text, with: mask)
        }
        return copy
    }
}
