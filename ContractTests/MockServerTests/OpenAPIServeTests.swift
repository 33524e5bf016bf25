import CourierMockServer
import Foundation
import Testing

/// `serve --openapi`: requests checked against the document — parameters,
/// credentials, bodies — and answered from it, on real sockets
/// (ContractTests/OpenAPI/Validation/api.yaml, OpenAPI 3.1, with a sibling
/// schema file).
@Suite struct OpenAPIServeTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("OpenAPI/Validation/api.yaml")

    static func configuration(strict: Bool = false, seed: UInt64 = 0) -> MockServer.Configuration {
        var configuration = MockServer.Configuration(strict: strict)
        configuration.openAPI = document
        configuration.openAPISeed = seed
        return configuration
    }

    static func json(_ response: ParsedResponse) throws -> [String: JSONValue] {
        guard case .object(let object) = try JSONValue.parse(response.body) else {
            throw RawClientError("not an object")
        }
        return object
    }

    static func rules(_ response: ParsedResponse) throws -> [String] {
        guard case .array(let errors)? = try json(response)["errors"] else { return [] }
        return errors.compactMap { error in
            guard case .object(let object) = error, case .string(let rule)? = object["rule"],
                case .string(let pointer)? = object["pointer"]
            else { return nil }
            return "\(rule) \(pointer)"
        }
    }

    @Test func aValidRequestIsAnsweredFromTheSchemaWithTheDocumentedHeaders() async throws {
        try await withMockServer(Self.configuration()) { server async throws in
            let response = try await RawClient.send(
                port: server.port, "/books?genre=fiction&genre=poetry&limit=5")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(Int(response.header("X-Total-Count") ?? "") != nil)
            guard case .array(let books) = try JSONValue.parse(response.body),
                case .object(let book)? = books.first
            else {
                Issue.record("not an array of objects: \(response.bodyText)")
                return
            }
            for key in ["id", "isbn", "title", "authors"] { #expect(book[key] != nil, "\(key) in \(book)") }
            let entry = try #require(server.journal.entries.last)
            #expect(entry.operationID == "listBooks")
            #expect(entry.findings == nil)
        }
    }

    @Test func theServersBasePathIsOptional() async throws {
        try await withMockServer(Self.configuration()) { server async throws in
            let response = try await RawClient.send(port: server.port, "/api/books")
            #expect(response.status == 200)
            #expect(server.journal.entries.last?.operationID == "listBooks")
        }
    }

    @Test func theSameSeedGivesTheSameAnswerAndAnotherSeedAnother() async throws {
        func body(seed: UInt64) async throws -> [UInt8] {
            try await withMockServer(Self.configuration(seed: seed)) { server async throws in
                try await RawClient.send(port: server.port, "/books").body
            }
        }
        let first = try await body(seed: 1)
        #expect(try await body(seed: 1) == first)
        #expect(try await body(seed: 2) != first)
    }

    @Test func parametersAreReadAsTheirStyleSaysAndCheckedAgainstTheirSchemas() async throws {
        try await withMockServer(Self.configuration()) { server async throws in
            let valid = try await RawClient.send(
                port: server.port, "/books?ids=1,2,3&filter%5Bauthor%5D=Herbert&filter%5Byear%5D=1965")
            #expect(valid.status == 200, "\(valid.bodyText)")
            let invalid = try await RawClient.send(
                port: server.port, "/books?genre=cooking&ids=1,two&limit=500&filter%5Byear%5D=old")
            #expect(invalid.status == 400)
            #expect(invalid.header("Content-Type") == "application/problem+json")
            #expect(
                try Set(Self.rules(invalid)) == [
                    "schema/enum /query/genre/0", "schema/type /query/ids/1", "schema/maximum /query/limit",
                    "schema/type /query/filter/year",
                ])
            let problem = try Self.json(invalid)
            #expect(problem["status"] == .int(400))
            #expect(problem["operation"] == .string("listBooks"))
            let entry = try #require(server.journal.entries.last)
            #expect(entry.status == 400)
            #expect(entry.findings?.count == 4)
        }
    }

    @Test func pathAndHeaderParametersAndTheirRequiredness() async throws {
        try await withMockServer(Self.configuration()) { server async throws in
            let bearer = ("Authorization", "Bearer token-1")
            let valid = try await RawClient.send(
                port: server.port, "/books/9780441013593",
                headers: [bearer, ("X-Request-Id", "6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f")])
            #expect(valid.status == 200, "\(valid.bodyText)")
            let invalid = try await RawClient.send(port: server.port, "/books/978-0441", headers: [bearer])
            #expect(invalid.status == 400)
            #expect(
                try Set(Self.rules(invalid)) == [
                    "schema/pattern /path/isbn", "parameter/missing /header/X-Request-Id",
                ])
        }
    }

    @Test func securityRequirementsAskForTheSchemesCredentials() async throws {
        try await withMockServer(Self.configuration()) { server async throws in
            let target = "/books/9780441013593"
            let id = ("X-Request-Id", "6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f")
            let anonymous = try await RawClient.send(port: server.port, target, headers: [id])
            #expect(anonymous.status == 401)
            #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try Self.rules(anonymous) == ["security/missing /header/Authorization"])
            let wrongScheme = try await RawClient.send(
                port: server.port, target, headers: [id, ("Authorization", "Basic YTpi")])
            #expect(wrongScheme.status == 401)
            // The operation's own requirement replaces the document's: an API key.
            let withBearer = try await RawClient.send(
                port: server.port, target, method: "DELETE", headers: [("Authorization", "Bearer t")])
            #expect(withBearer.status == 401)
            #expect(withBearer.header("WWW-Authenticate")?.hasPrefix("ApiKey") == true)
            let withKey = try await RawClient.send(
                port: server.port, target, method: "DELETE", headers: [("X-Api-Key", "k")])
            #expect(withKey.status == 204)
        }
    }

    @Test func bodiesAreCheckedByContentType() async throws {
        try await withMockServer(Self.configuration()) { server async throws in
            let bearer = ("Authorization", "Bearer t")
            let json = ("Content-Type", "application/json")
            let good = Array(
                #"{"isbn":"9780441013593","title":"Dune","authors":["Frank Herbert"],"year":null}"#.utf8)
            let created = try await RawClient.send(
                port: server.port, "/books", method: "POST", headers: [bearer, json], body: good)
            #expect(created.status == 201, "\(created.bodyText)")
            let bad = Array(
                #"{"isbn":"123","title":"","authors":[],"year":1200,"tags":["a","a"],"price":9}"#.utf8)
            let refused = try await RawClient.send(
                port: server.port, "/books", method: "POST", headers: [bearer, json], body: bad)
            #expect(refused.status == 400)
            #expect(
                try Set(Self.rules(refused)) == [
                    "schema/pattern /body/isbn", "schema/minLength /body/title",
                    "schema/minItems /body/authors",
                    "schema/minimum /body/year", "schema/uniqueItems /body/tags",
                    "schema/additionalProperties /body/price",
                ])
            let malformed = try await RawClient.send(
                port: server.port, "/books", method: "POST", headers: [bearer, json],
                body: Array(#"{"isbn":"#.utf8))
            #expect(try Self.rules(malformed) == ["body/json /body"])
            let missing = try await RawClient.send(
                port: server.port, "/books", method: "POST", headers: [bearer])
            #expect(try Self.rules(missing) == ["body/missing /body"])
            let xml = try await RawClient.send(
                port: server.port, "/books", method: "POST",
                headers: [bearer, ("Content-Type", "application/xml")],
                body: Array("<book/>".utf8))
            #expect(xml.status == 415)
            let form = try await RawClient.send(
                port: server.port, "/books", method: "POST",
                headers: [bearer, ("Content-Type", "application/x-www-form-urlencoded")],
                body: Array("isbn=9780441013593&title=Dune&authors=Frank+Herbert&year=1965".utf8))
            #expect(form.status == 201, "\(form.bodyText)")
        }
    }

    @Test func multipartPartsAreCheckedAsAnObject() async throws {
        try await withMockServer(Self.configuration()) { server async throws in
            func multipart(_ parts: [(String, String)]) -> [UInt8] {
                var text = ""
                for (name, value) in parts {
                    text +=
                        "--b0undary\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
                }
                return Array((text + "--b0undary--\r\n").utf8)
            }
            let headers = [
                ("Authorization", "Bearer t"), ("Content-Type", "multipart/form-data; boundary=b0undary"),
            ]
            let stored = try await RawClient.send(
                port: server.port, "/covers", method: "POST", headers: headers,
                body: multipart([("isbn", "9780441013593"), ("image", "aGVsbG8=")]))
            #expect(stored.status == 204, "\(stored.bodyText)")
            let refused = try await RawClient.send(
                port: server.port, "/covers", method: "POST", headers: headers,
                body: multipart([("isbn", "x")]))
            #expect(
                try Set(Self.rules(refused)) == ["schema/pattern /body/isbn", "schema/required /body/image"])
        }
    }

    @Test func preferPicksTheStatusAndTheNamedExample() async throws {
        try await withMockServer(Self.configuration()) { server async throws in
            let headers = [
                ("Authorization", "Bearer t"), ("X-Request-Id", "6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f"),
            ]
            let dune = try await RawClient.send(
                port: server.port, "/books/9780441013593", headers: headers + [("Prefer", "example=dune")])
            #expect(try Self.json(dune)["title"] == .string("Dune"))
            let notFound = try await RawClient.send(
                port: server.port, "/books/9780441013593", headers: headers + [("Prefer", "code=404")])
            #expect(notFound.status == 404)
            #expect(notFound.header("Content-Type") == "application/problem+json")
            let undocumented = try await RawClient.send(
                port: server.port, "/books/9780441013593", headers: headers + [("Prefer", "code=418")])
            #expect(undocumented.status == 500)
            #expect(try Self.rules(undocumented) == ["prefer/code /header/Prefer"])
        }
    }

    @Test func anUndocumentedMethodIs405WithAllow() async throws {
        try await withMockServer(Self.configuration()) { server async throws in
            let response = try await RawClient.send(port: server.port, "/covers", method: "PUT", body: [])
            #expect(response.status == 405)
            #expect(response.header("Allow") == "POST")
        }
    }

    @Test func stubsStillAnswerFirstAndStrictModeRecordsEveryFinding() async throws {
        var configuration = Self.configuration(strict: true)
        configuration.stubs = [
            StubMapping(
                id: "listed", request: RequestPattern(method: "GET", url: .path("/books")),
                responses: [.json(.array([]), status: 200)])
        ]
        try await withMockServer(configuration) { server async throws in
            let stubbed = try await RawClient.send(port: server.port, "/books")
            #expect(stubbed.bodyText == "[]")
            #expect(server.journal.entries.last?.stubID == "listed")
            #expect(server.journal.entries.last?.operationID == "listBooks")
            _ = try await RawClient.send(port: server.port, "/books?limit=0")
            #expect(throws: MockVerificationError.self) { try server.verify() }
        }
    }
}
