import CourierMockServer
import Foundation
import Testing

struct ContractLoadingTests {
    func error(_ json: String) -> ContractError? {
        do {
            _ = try ContractLoader.parse(Array(json.utf8), file: "bad.json")
            return nil
        } catch {
            return error
        }
    }

    @Test func theRepositoryContractsLoad() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Contracts").standardizedFileURL
        let stubs = try ContractLoader.load(directory: directory)
        #expect(stubs.contains { $0.id == "recent-orders-flaky" && $0.responses.count == 3 })
    }

    @Test func aFullMappingParses() throws {
        let stub = try #require(
            try stubs(
                #"""
                {"id": "s", "priority": 2, "required": true, "scenarioName": "flow", "requiredScenarioState": "Started",
                 "newScenarioState": "done",
                 "request": {"method": "post", "urlPathTemplate": "/u/{id}",
                             "queryParameters": {"q": {"contains": "x"}}, "headers": {"X-A": {"matches": "a+"}},
                             "bodyPatterns": [{"containsJson": {"a": 1}}]},
                 "responses": [{"status": 201, "headers": {"Set-Cookie": ["a=1", "b=2"]}, "jsonBody": {"ok": true},
                                "fixedDelayMilliseconds": 5},
                               {"fault": {"name": "closeMidBody", "afterBytes": 3}}],
                 "exhausted": "fail"}
                """#
            ).first)
        #expect(stub.priority == 2)
        #expect(stub.required)
        #expect(stub.request.method == "POST")
        #expect(stub.request.url == .template("/u/{id}"))
        #expect(stub.request.headers["x-a"] == .matches("a+"))
        #expect(stub.scenario == .init(name: "flow", requiredState: "Started", newState: "done"))
        #expect(stub.responses[0].headers.map(\.name) == ["Content-Type", "Set-Cookie", "Set-Cookie"])
        #expect(stub.responses[0].delay == .fixed(milliseconds: 5))
        #expect(stub.responses[1].fault == .closeMidBody(afterBytes: 3))
        #expect(stub.exhausted == .fail)
    }

    @Test(arguments: [
        (
            #"{"request": {"method": "GET"}, "response": {"status": "200"}}"#, "$.response.status",
            "expected an integer"
        ),
        (#"{"request": {"methd": "GET"}, "response": {}}"#, "$.request.methd", "unknown key"),
        (
            #"{"mappings": [{"request": {}, "response": {}}, {"request": {}, "response": {"status": 99}}]}"#,
            "$.mappings[1].response.status", "from 100 to 599"
        ),
        (
            #"{"request": {"urlPathPattern": "(("}, "response": {}}"#, "$.request.urlPathPattern",
            "invalid regular expression"
        ),
        (#"{"request": {}, "response": {"fault": "explode"}}"#, "$.response.fault", "unknown fault"),
        (#"{"request": {}, "response": {}, "responses": [{}]}"#, "$", "not both"),
        (#"{"request": {}}"#, "$.response", "is required"),
        (#"{"request": {}, "responses": []}"#, "$.responses", "must not be empty"),
        (
            #"{"request": {"bodyPatterns": [{"contains": "x"}]}, "response": {"fault": "doNotReadRequestBody"}}"#,
            "$.responses[0].fault", "before the body is read"
        ),
        (
            #"{"request": {"headers": {"A": {"equalTo": "x", "contains": "y"}}}, "response": {}}"#,
            "$.request.headers.A",
            "exactly one"
        ),
        (
            #"{"request": {}, "response": {"envelope": {"code": 1.5}}}"#, "$.response.envelope.code",
            "integer or a string"
        ),
        (
            #"{"request": {}, "response": {"envelope": {"preset": "weird"}}}"#, "$.response.envelope.preset",
            "unknown preset"
        ),
        (#"{"request": {}, "response": {"body": "a", "jsonBody": {}}}"#, "$.response.jsonBody", "only one"),
        (#"{"request": {}, "response": {}, "exhausted": "loop"}"#, "$.exhausted", "repeatLast or fail"),
        (
            #"{"request": {}, "response": {"bodyFileName": "x.json"}}"#, "$.response.bodyFileName",
            "contracts directory"
        ),
        (#"{"request": [], "response": {}}"#, "$.request", "expected an object"),
        // Found by fuzz-contract: a name that is not a token, and a value with a
        // line break (the server would have written another header), were taken.
        (
            #"{"request": {}, "response": {"headers": {"Retry-Aft[er": "1"}}}"#,
            "$.response.headers.Retry-Aft[er", "not a valid header name"
        ),
        (
            #"{"request": {}, "response": {"headers": {"X-A": "1\r\nSet-Cookie: a=b"}}}"#,
            "$.response.headers.X-A", "control character"
        ),
        (
            #"{"request": {}, "response": {"headers": {"X-A": ["ok", "nul\u0000"]}}}"#,
            "$.response.headers.X-A", "control character"
        ),
        (#"{"request": {}, "response": {"#, "$", "not valid JSON"),
        // Found by fuzz-contract: two request headers differing only in case
        // crashed the parser (a dictionary built from non-unique keys).
        (
            #"{"request": {"headers": {"X-Id": "1", "x-id": "2"}}, "response": {}}"#,
            "$.request.headers.x-id", "named twice"
        ),
    ])
    func badContractsNameFileAndPath(json: String, path: String, message: String) throws {
        let error = try #require(self.error(json))
        #expect(error.file == "bad.json")
        #expect(error.path == path)
        #expect(error.message.contains(message), "\(error)")
        #expect(error.description.hasPrefix("bad.json: \(path): "))
    }

    @Test func directoriesRejectDuplicateIDsAndEscapingBodyFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("contracts-\(UUID())")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("__files"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"id": "x", "request": {}, "response": {"bodyFileName": "page.html"}}"#.utf8)
            .write(to: directory.appendingPathComponent("a.json"))
        try Data("<p>hi</p>".utf8).write(to: directory.appendingPathComponent("__files/page.html"))
        let loaded = try ContractLoader.load(directory: directory)
        #expect(loaded.first?.responses.first?.body == Array("<p>hi</p>".utf8))

        try Data(#"{"id": "x", "request": {}, "response": {}}"#.utf8).write(
            to: directory.appendingPathComponent("b.json"))
        #expect(throws: ContractError.self) { try ContractLoader.load(directory: directory) }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("b.json"))

        try Data(#"{"id": "y", "request": {}, "response": {"bodyFileName": "../a.json"}}"#.utf8)
            .write(to: directory.appendingPathComponent("c.json"))
        do {
            _ = try ContractLoader.load(directory: directory)
            Issue.record("a body file outside __files loaded")
        } catch {
            #expect(error.file == "c.json")
            #expect(error.message.contains("outside"))
        }
    }

    @Test func missingDirectoryIsAnError() {
        #expect(throws: ContractError.self) {
            try ContractLoader.load(directory: URL(fileURLWithPath: "/nonexistent/contracts"))
        }
    }
}
