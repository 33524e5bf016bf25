import CourierCache
import CourierCore
import Foundation
import Testing

/// RFC 9111 (with RFC 5861 and RFC 9110 §13) for a private client cache, as
/// a table: every MUST, MUST NOT, SHOULD and SHOULD NOT that applies, with
/// the check that proves it against courier-mock over every transport, or
/// why it does not apply. `docs/cache-conformance.md` is the same table for
/// people; this suite fails when the two differ.
struct CacheConformanceTests {
    /// How one transport did.
    struct Tally: CustomStringConvertible {
        var mustPassed = 0
        var must = 0
        var shouldPassed = 0
        var should = 0
        var notApplicable = 0

        var description: String {
            "MUST \(mustPassed)/\(must) passed, SHOULD \(shouldPassed)/\(should) passed, "
                + "\(notApplicable) not applicable"
        }
    }

    @Test(arguments: TransportKind.allCases)
    func everyRequirementHolds(kind: TransportKind) async throws {
        var tally = Tally()
        for requirement in CacheRequirement.all {
            guard case .checked(let check) = requirement.verdict else {
                tally.notApplicable += 1
                continue
            }
            let passed: Bool
            do {
                try await CacheLab.run(requirement.stubs, over: kind, sharing: requirement.sharing, check)
                passed = true
            } catch {
                Issue.record(
                    "\(requirement.source) \(requirement.level.rawValue) \(requirement.text): \(error)")
                passed = false
            }
            if requirement.level.isMust {
                tally.must += 1
                if passed { tally.mustPassed += 1 }
            } else {
                tally.should += 1
                if passed { tally.shouldPassed += 1 }
            }
        }
        // The summary line.
        print("cache conformance over \(kind): \(tally)")
        #expect(tally.mustPassed == tally.must)
        #expect(tally.shouldPassed == tally.should)
    }

    /// The table in `docs/cache-conformance.md` is this suite's, row for row;
    /// `COURIER_WRITE_CONFORMANCE=1` rewrites it.
    @Test func theDocumentIsTheTable() throws {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/cache-conformance.md")
        let table = Self.document()
        if ProcessInfo.processInfo.environment["COURIER_WRITE_CONFORMANCE"] == "1" {
            try table.write(to: url, atomically: true, encoding: .utf8)
        }
        let written = try String(contentsOf: url, encoding: .utf8)
        #expect(
            written == table,
            "docs/cache-conformance.md is out of date: run COURIER_WRITE_CONFORMANCE=1 swift test --filter theDocumentIsTheTable"
        )
    }

    static func document() -> String {
        let all = CacheRequirement.all
        let must = all.filter(\.level.isMust)
        let should = all.filter { !$0.level.isMust }
        func checked(_ rows: [CacheRequirement]) -> Int {
            rows.filter { if case .checked = $0.verdict { true } else { false } }.count
        }
        var lines = [
            "# Cache conformance: RFC 9111, RFC 5861, RFC 9110 §13",
            "",
            "Every MUST, MUST NOT, SHOULD and SHOULD NOT of RFC 9111 (HTTP caching), RFC 5861",
            "(`stale-while-revalidate`, `stale-if-error`) and RFC 9110 §13 (conditional requests)",
            "that bears on Courier's response cache — a private client cache, or a shared one",
            "with `CacheSharing.shared` — in our words, with how it is proved.",
            "",
            "A checked row runs against courier-mock over every transport (CourierCurl's two",
            "event loops, URLSession, async-http-client) in",
            "`ContractTests/Conformance/CacheRFC/` (`CacheConformanceTests`), whose summary line",
            "prints the counts per transport. This file is generated from that table, and the",
            "suite fails when they differ.",
            "",
            "**\(must.count) MUST / MUST NOT rows: \(checked(must)) checked, "
                + "\(must.count - checked(must)) not applicable. \(should.count) SHOULD / SHOULD NOT rows: "
                + "\(checked(should)) checked, \(should.count - checked(should)) not applicable.**",
            "",
            "Where the RFCs leave a choice, Courier's: no heuristic freshness (§4.2.2 allows it;",
            "a client cache that guesses serves what the server never said it could); a",
            "qualified `no-cache=\"field\"` or `private=\"field\"` counts as the unqualified",
            "directive (stricter, as §5.2.2.4 notes most caches do); `stale-if-error` from the",
            "response or the request, the longer grace winning; up to `CachePolicy.variants`",
            "(8) `Vary` variants besides the most recent; invalidation also of the same-origin",
            "`Location` and `Content-Location` URIs (§4.4's MAY).",
            "",
            "| # | source | level | requirement | proved by |",
            "|---|---|---|---|---|",
        ]
        for (index, row) in all.enumerated() {
            let proof: String
            switch row.verdict {
            case .checked: proof = "check in `\(row.file)`"
            case .notApplicable(let reason): proof = "n/a: " + reason
            }
            lines.append("| \(index + 1) | \(row.source) | \(row.level.rawValue) | \(row.text) | \(proof) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
