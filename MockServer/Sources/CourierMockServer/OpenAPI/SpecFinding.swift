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
}
