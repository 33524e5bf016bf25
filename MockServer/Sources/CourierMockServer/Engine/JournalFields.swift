/// The journal fields an answer fills in.
struct JournalFields: Sendable {
    var stubID: String?
    var responseIndex: Int?
    var builtinRoute: String?
    var unmatched = false
    var scenarioName: String?
    var stateBefore: String?
    var stateAfter: String?
    var fault: String?
    var delayMs: Int?
    var status: Int?
    /// The answer planned, for the journal's readers (HAR).
    var response: RecordedResponse?
    /// Why no stub matched, when none did.
    var nearMisses: [NearMiss]?
    /// The OpenAPI operation the request called, when a document is served.
    var operationID: String?
    /// What the request broke of the OpenAPI document.
    var findings: [SpecFinding]?

    init(status: Int?) { self.status = status }

    init(matched: MatchedResponse, status: Int?) {
        stubID = matched.stubID
        responseIndex = matched.responseIndex
        scenarioName = matched.scenarioName
        stateBefore = matched.stateBefore
        stateAfter = matched.stateAfter
        fault = matched.response.fault?.name
        delayMs = matched.delayMs
        self.status = status
    }
}
