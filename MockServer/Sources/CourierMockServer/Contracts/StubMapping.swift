/// A stub: which requests it answers, and how.
///
/// The JSON form is documented in `MockServer/README.md`. A stub answers with
/// one `response`, or with a sequence of `responses` (one per matching
/// request); `exhausted` says what happens after the last.
public struct StubMapping: Sendable, Hashable {
    /// What happens when a sequence has been used up.
    public enum Exhausted: String, Sendable, Hashable {
        /// Keep answering with the last response.
        case repeatLast
        /// Answer 500 and record a failure that ``MockServer/verify()`` reports.
        case fail
    }

    /// A WireMock-style scenario rule.
    public struct Scenario: Sendable, Hashable {
        /// The scenario's name; every scenario starts in state `Started`.
        public var name: String
        /// The state the scenario must be in for the stub to match; `nil` for any.
        public var requiredState: String?
        /// The state to move to after the stub answered.
        public var newState: String?

        /// Creates a rule.
        public init(name: String, requiredState: String? = nil, newState: String? = nil) {
            self.name = name
            self.requiredState = requiredState
            self.newState = newState
        }
    }

    /// A unique name; journal entries and near-miss reports use it.
    public var id: String
    /// Lower numbers win; among equals, the stub added last wins. Default 5.
    public var priority: Int
    /// Which requests match.
    public var request: RequestPattern
    /// The answers, in order.
    public var responses: [StubResponse]
    /// What happens after the last answer.
    public var exhausted: Exhausted
    /// The scenario rule, if any.
    public var scenario: Scenario?
    /// Whether ``MockServer/verify()`` fails when the stub was never hit.
    public var required: Bool

    /// Creates a stub.
    public init(
        id: String, priority: Int = 5, request: RequestPattern, responses: [StubResponse],
        exhausted: Exhausted = .repeatLast, scenario: Scenario? = nil, required: Bool = false
    ) {
        self.id = id
        self.priority = priority
        self.request = request
        self.responses = responses
        self.exhausted = exhausted
        self.scenario = scenario
        self.required = required
    }
}
