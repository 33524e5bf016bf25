import Foundation
import Testing

@testable import CourierMockServer

/// The schema validator against the JSON Schema Test Suite
/// (ContractTests/Fixtures/JSONSchemaTestSuite, see its NOTICE): every case
/// of the keywords it implements, OpenAPI 3.1's dialect on draft 2020-12 and
/// 3.0's on draft 4. A group whose schema uses what the validator does not
/// implement (`$id`, anchors, dynamic references, `unevaluated*`, remote
/// references) is left out, and counted, so that the suite cannot pass by
/// skipping everything.
@Suite struct JSONSchemaSuiteTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/JSONSchemaTestSuite")

    static let unsupported: Set<String> = [
        "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "unevaluatedProperties",
        "unevaluatedItems", "$vocabulary", "id",
    ]

    struct Outcome {
        var passed = 0
        var skippedGroups = 0
        var failures: [String] = []
    }

    static func run(folder: String, dialect: SchemaDialect) throws -> Outcome {
        var outcome = Outcome()
        let directory = fixtures.appendingPathComponent(folder)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".json")
        }
        .sorted()
        for file in files {
            let groups = try JSONValue.parse(
                Array(try Data(contentsOf: directory.appendingPathComponent(file))))
            guard case .array(let list) = groups else { continue }
            for case .object(let group) in list {
                guard let schema = group["schema"], case .array(let tests)? = group["tests"],
                    case .string(let groupName)? = group["description"]
                else { continue }
                if usesUnsupported(schema) {
                    outcome.skippedGroups += 1
                    continue
                }
                let files = SpecFiles(document: schema, name: "schema.json")
                let validator = SchemaValidator(files: files, dialect: dialect, direction: .request)
                let root = SpecLocation(file: files.root, pointer: "")
                for case .object(let test) in tests {
                    guard let data = test["data"], case .bool(let valid)? = test["valid"],
                        case .string(let name)? = test["description"]
                    else { continue }
                    let findings = validator.validate(data, against: schema, at: root, pointer: "")
                    if findings.isEmpty == valid {
                        outcome.passed += 1
                    } else {
                        outcome.failures.append(
                            "\(folder)/\(file): \(groupName): \(name): expected \(valid ? "valid" : "invalid"), "
                                + "found \(findings.isEmpty ? "valid" : findings.map(\.message).joined(separator: "; "))"
                        )
                    }
                }
            }
        }
        return outcome
    }

    /// Whether a schema uses a keyword the validator does not implement, or
    /// a reference outside its own document.
    static func usesUnsupported(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let object):
            if object.keys.contains(where: unsupported.contains) { return true }
            if case .string(let reference)? = object["$ref"], !reference.hasPrefix("#") { return true }
            return object.values.contains(where: usesUnsupported)
        case .array(let items): return items.contains(where: usesUnsupported)
        default: return false
        }
    }

    @Test func draft2020_12UnderOpenAPI31() throws {
        let outcome = try Self.run(folder: "draft2020-12", dialect: .openAPI31)
        #expect(outcome.failures == [])
        #expect(
            outcome.passed > 700, "cases run: \(outcome.passed), groups left out: \(outcome.skippedGroups)")
    }

    @Test func draft4UnderOpenAPI30() throws {
        let outcome = try Self.run(folder: "draft4", dialect: .openAPI30)
        #expect(outcome.failures == [])
        #expect(
            outcome.passed > 350, "cases run: \(outcome.passed), groups left out: \(outcome.skippedGroups)")
    }

    @Test func formatsAsAsserted() throws {
        let outcome = try Self.run(folder: "draft2020-12-format", dialect: .openAPI31)
        #expect(outcome.failures == [])
        #expect(outcome.passed > 200, "cases run: \(outcome.passed)")
    }
}
