import CourierCache
import CourierCore

/// One normative statement of RFC 9111, RFC 5861 or RFC 9110 §13 that a
/// private client cache meets or may set aside, in our words, with the
/// check that proves it over a real server — or why it does not apply.
struct CacheRequirement: Sendable {
    /// BCP 14's keywords, as the RFC writes them.
    enum Level: String, Sendable, CaseIterable {
        case must = "MUST"
        case mustNot = "MUST NOT"
        case should = "SHOULD"
        case shouldNot = "SHOULD NOT"

        /// MUST and MUST NOT count together, as do SHOULD and SHOULD NOT.
        var isMust: Bool { self == .must || self == .mustNot }
    }

    enum Verdict: Sendable {
        /// Checked by this, over every transport.
        case checked(@Sendable (CacheLab) async throws -> Void)
        /// Does not apply to Courier's cache, for this reason.
        case notApplicable(String)
    }

    /// `RFC 9111 §4.4`, say.
    let source: String
    let level: Level
    /// The requirement in a sentence.
    let text: String
    /// The stubs the check's server answers with.
    let stubs: [CacheLab.Stub]
    /// Whether the check runs against a shared cache.
    let sharing: CacheSharing
    let verdict: Verdict

    init(
        _ source: String, _ level: Level, _ text: String, stubs: [CacheLab.Stub] = [],
        sharing: CacheSharing = .private, check: @escaping @Sendable (CacheLab) async throws -> Void
    ) {
        self.source = source
        self.level = level
        self.text = text
        self.stubs = stubs
        self.sharing = sharing
        self.verdict = .checked(check)
    }

    init(_ source: String, _ level: Level, _ text: String, notApplicable reason: String) {
        self.source = source
        self.level = level
        self.text = text
        self.stubs = []
        self.sharing = .private
        self.verdict = .notApplicable(reason)
    }

    /// Where the check is written (`Requirements+Storing.swift`).
    var file = ""

    /// Every requirement, in the RFCs' order.
    static var all: [CacheRequirement] {
        let groups: [(String, [CacheRequirement])] = [
            ("Storing", storing), ("Reuse", reuse), ("Validation", validation), ("Directives", directives),
            ("Directives", extensions),
        ]
        return groups.flatMap { group, rows in
            rows.map { row in
                var row = row
                row.file = "Requirements+\(group).swift"
                return row
            }
        }
    }
}
