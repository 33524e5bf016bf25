import Foundation
import Testing

@testable import CourierMockServer

/// Reading documents (YAML and JSON, 3.0 and 3.1, references across files)
/// and what is made from them: every made-up answer must pass the
/// document's own schema, for several seeds.
@Suite struct OpenAPISpecTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("OpenAPI")
    static let documents = ["Validation/api.yaml", "Petstore/openapi.yaml"]

    @Test(arguments: documents)
    func everyMadeUpAnswerPassesItsOwnSchema(_ name: String) throws {
        let spec = try OpenAPISpec(contentsOf: Self.folder.appendingPathComponent(name))
        var checked = 0
        for operation in spec.operations {
            for (key, response) in operation.responses.value {
                let location = operation.responses.location.appending(key)
                let (resolved, responseLocation) = try spec.files.dereferenced(response, at: location)
                guard case .object(let object) = resolved, case .object(let content)? = object["content"]
                else { continue }
                for (type, media) in content {
                    guard case .object(let mediaObject) = media, let schema = mediaObject["schema"] else {
                        continue
                    }
                    let schemaLocation = responseLocation.appending("content").appending(type).appending(
                        "schema")
                    for seed in UInt64(0)..<5 {
                        let sampler = SchemaSampler(
                            files: spec.files, dialect: spec.dialect, direction: .response, seed: seed)
                        let value = sampler.sample(schema, at: schemaLocation)
                        let validator = SchemaValidator(
                            files: spec.files, dialect: spec.dialect, direction: .response)
                        let findings = validator.validate(
                            value, against: schema, at: schemaLocation, pointer: "")
                        #expect(
                            findings == [], "\(operation.displayName) \(key) \(type) seed \(seed): \(value)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked >= 20)
    }

    @Test func aJSONDocumentReadsAsItsYAMLTwin() throws {
        let yaml = try SpecFiles(root: Self.folder.appendingPathComponent("Petstore/openapi.yaml"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("openapi.json")
        try Data(yaml.document.jsonBytes).write(to: json)
        #expect(try SpecFiles(root: json).document == yaml.document)
        let spec = try OpenAPISpec(contentsOf: json)
        #expect(spec.dialect == .openAPI30)
        #expect(
            spec.operations.compactMap(\.operationID).sorted() == [
                "addPet", "deletePet", "find pet by id", "findPets",
            ])
    }

    @Test func yamlIsReadUnderTheCoreSchema() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("values.yaml")
        try Data("a: yes\nb: 2024-01-01\nc: 0x1f\nd: 1.5e3\ne: ~\nf: '12'\ng: true\n".utf8).write(to: file)
        let values = try SpecFiles(root: file).document
        #expect(
            values
                == .object([
                    "a": .string("yes"), "b": .string("2024-01-01"), "c": .int(31), "d": .double(1500),
                    "e": .null,
                    "f": .string("12"), "g": .bool(true),
                ]))
    }

    @Test func badDocumentsAreRefusedNamingFileAndPlace() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [(String, String)] = [
            ("swagger: '2.0'\n", "courier-mock reads OpenAPI 3.0 and 3.1"),
            (
                "openapi: 3.0.3\npaths:\n  /a:\n    get:\n      parameters:\n        - $ref: 'missing.yaml#/p'\n",
                "$ref missing.yaml#/p: cannot read missing.yaml"
            ),
            (
                "openapi: 3.0.3\npaths:\n  /a:\n    get:\n      parameters:\n        - $ref: '#/nowhere'\n",
                "nothing at this pointer"
            ),
            ("openapi: [\n", "not YAML"),
            // Empty (found by fuzz-openapi: Foundation leaked reading it).
            ("", "not an OpenAPI document"),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let file = directory.appendingPathComponent("doc\(index).yaml")
            try Data(text.utf8).write(to: file)
            #expect {
                _ = try OpenAPISpec(contentsOf: file)
            } throws: { error in
                "\(error)".contains(expected)
            }
        }
    }

    /// `a: {anyOf: [{$ref: a}, {$ref: a}]}` would branch forever (the
    /// depth bound alone allows 2^64 paths): re-entering a reference at the
    /// same place in the value is a finding, and the check ends.
    @Test func aReferenceCycleEndsWithAFinding() {
        let loop: JSONValue = .object(["$ref": .string("#/$defs/a")])
        let schema: JSONValue = .object([
            "$defs": .object(["a": .object(["anyOf": .array([loop, loop])])]), "$ref": .string("#/$defs/a"),
        ])
        let files = SpecFiles(document: schema, name: "cycle.json")
        let validator = SchemaValidator(files: files, dialect: .openAPI31, direction: .request)
        let findings = validator.validate(
            .int(1), against: schema, at: SpecLocation(file: files.root, pointer: ""), pointer: "")
        #expect(findings.map(\.rule) == ["schema/anyOf"])
        // A recursive schema that goes deeper into the value is no cycle.
        let tree: JSONValue = .object([
            "$defs": .object([
                "node": .object([
                    "type": .string("object"),
                    "properties": .object([
                        "children": .object([
                            "type": .string("array"), "items": .object(["$ref": .string("#/$defs/node")]),
                        ])
                    ]),
                ])
            ]),
            "$ref": .string("#/$defs/node"),
        ])
        let treeFiles = SpecFiles(document: tree, name: "tree.json")
        let nested: JSONValue = .object(["children": .array([.object(["children": .array([.object([:])])])])])
        let treeValidator = SchemaValidator(files: treeFiles, dialect: .openAPI31, direction: .request)
        #expect(
            treeValidator.validate(
                nested, against: tree, at: SpecLocation(file: treeFiles.root, pointer: ""), pointer: "") == []
        )
    }

    /// A document's header example or media type with CR or LF would split
    /// the answer's head; a header name that is no token cannot be sent.
    @Test func answersNeverCarryWhatBreaksTheirHead() throws {
        let document: JSONValue = .object([
            "openapi": .string("3.1.0"),
            "paths": .object([
                "/a": .object([
                    "get": .object([
                        "responses": .object([
                            "200": .object([
                                "headers": .object([
                                    "X-Split": .object(["example": .string("one\r\nSet-Cookie: stolen=1")]),
                                    "Bad Name": .object(["example": .string("x")]),
                                ]),
                                "content": .object([
                                    "text/plain\r\nX-Injected: 1": .object(["example": .string("hi")])
                                ]),
                            ])
                        ])
                    ])
                ])
            ]),
        ])
        let spec = try OpenAPISpec(files: SpecFiles(document: document, name: "split.json"))
        let operation = try #require(spec.operations.first)
        let request = RecordedRequest(method: "GET", uri: "/a", headers: [], body: [])
        let answer = try SpecResponder(spec: spec, seed: 0).answer(operation, request).get()
        #expect(answer.headers.map(\.name) == ["Content-Type", "X-Split"])
        #expect(answer.headers.allSatisfy { !$0.value.contains("\r") && !$0.value.contains("\n") })
    }

    @Test func patternsGiveMatchingStrings() throws {
        for pattern in ["^[0-9]{13}$", "^[A-Z]{2}-\\d{4}$", "^ab+c?$", "[a-f0-9]{8}"] {
            let sample = try #require(PatternSampler.sample(pattern, variant: 7))
            let regex = try #require(SchemaFormats.regex(pattern))
            #expect(SchemaFormats.search(regex, in: sample), "\(pattern): \(sample)")
        }
        #expect(PatternSampler.sample("^(a|b)$", variant: 0) == nil)
    }
}
