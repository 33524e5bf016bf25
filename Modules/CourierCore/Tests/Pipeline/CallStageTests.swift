import Foundation
import Testing

@testable import CourierCore

/// `CallStage` is the one list of the pipeline's stages: the documents that
/// number them — the DocC article, its diagram, the README — say the same
/// stages, in the same order, under the same titles.
struct CallStageTests {
    /// The repository's root, from this file's place in it.
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Pipeline
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // CourierCore
        .deletingLastPathComponent()  // Modules
        .deletingLastPathComponent()

    private static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The titles of a Markdown list written `N. **Title**`, in the order
    /// written, with their numbers.
    private static func numberedTitles(in markdown: String) -> [(number: Int, title: String)] {
        markdown.split(separator: "\n").compactMap { line in
            guard let dot = line.firstIndex(of: "."), let number = Int(line[..<dot]),
                line[dot...].hasPrefix(". **")
            else { return nil }
            let rest = line[line.index(dot, offsetBy: 4)...]
            guard let end = rest.range(of: "**") else { return nil }
            var title = String(rest[..<end.lowerBound])
            if title.hasSuffix(".") { title.removeLast() }
            return (number, title)
        }
    }

    private static var expected: [String] {
        CallStage.allCases.map { "\($0.rawValue) \($0.title)" }
    }

    @Test func theStagesAreNumberedFromOneWithoutGaps() {
        #expect(CallStage.allCases.map(\.rawValue) == Array(1...CallStage.allCases.count))
        #expect(Set(CallStage.allCases.map(\.title)).count == CallStage.allCases.count)
    }

    @Test func theArticleListsEveryStageInOrder() throws {
        let article = try Self.text("Modules/CourierCore/Sources/CourierCore.docc/WhatACallGoesThrough.md")
        let listed = Self.numberedTitles(in: article).map { "\($0.number) \($0.title)" }
        #expect(listed == Self.expected)
    }

    @Test func theReadmeListsEveryStageInOrder() throws {
        let readme = try Self.text("README.md")
        guard let section = readme.range(of: "## What a call goes through") else {
            Issue.record("README.md has no section \"What a call goes through\"")
            return
        }
        let rest = readme[section.upperBound...]
        let body = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        let listed = Self.numberedTitles(in: String(body)).map { "\($0.number) \($0.title)" }
        #expect(listed == Self.expected)
    }

    @Test func theDiagramLabelsEveryStageInOrder() throws {
        let diagram = try Self.text("Modules/CourierCore/Sources/CourierCore.docc/Resources/pipeline.svg")
        // Each stage's label is `N  Title…` in one <text> element.
        let labels = diagram.split(separator: "<text").compactMap { element -> String? in
            guard let open = element.firstIndex(of: ">"), let close = element.range(of: "</text>") else {
                return nil
            }
            return String(element[element.index(after: open)..<close.lowerBound])
        }
        let numbered = labels.filter { $0.first?.isNumber == true }
        #expect(numbered.count == CallStage.allCases.count)
        for (label, stage) in zip(numbered, CallStage.allCases) {
            #expect(label.hasPrefix("\(stage.rawValue)  \(stage.title)"), "diagram label \"\(label)\"")
        }
    }
}
