import CourierMockServer
import Testing

struct MatchingTests {
    static let contract = #"""
        {"mappings": [
          {"id": "exact", "request": {"method": "GET", "url": "/items?page=1"}, "response": {"body": "exact"}},
          {"id": "template", "request": {"method": "GET", "urlPathTemplate": "/users/{id}/posts"}, "response": {"body": "template"}},
          {"id": "pattern", "request": {"urlPathPattern": "/files/[a-z]+\\.txt"}, "response": {"body": "pattern"}},
          {"id": "query", "request": {"urlPath": "/search", "queryParameters": {"q": {"contains": "swift"}, "debug": {"absent": true}}},
           "response": {"body": "query"}},
          {"id": "headers", "request": {"urlPath": "/secure", "headers": {"Authorization": {"matches": "Bearer [a-z0-9]+"},
             "X-Trace": {"present": true}, "Accept": "application/json"}}, "response": {"body": "headers"}},
          {"id": "json-equal", "request": {"method": "POST", "urlPath": "/json", "bodyPatterns": [{"equalToJson": {"a": 1, "b": [true]}}]},
           "response": {"body": "json-equal"}},
          {"id": "json-subset", "request": {"method": "POST", "urlPath": "/json", "bodyPatterns": [{"containsJson": {"user": {"id": 7}}}]},
           "response": {"body": "json-subset"}},
          {"id": "form", "request": {"method": "POST", "urlPath": "/form", "bodyPatterns": [{"formParameters": {"name": "Ada Lovelace", "tag": {"present": true}}}]},
           "response": {"body": "form"}},
          {"id": "low", "priority": 9, "request": {"urlPath": "/prio"}, "response": {"body": "low"}},
          {"id": "high", "priority": 1, "request": {"urlPath": "/prio"}, "response": {"body": "high"}},
          {"id": "tie-old", "request": {"urlPath": "/tie"}, "response": {"body": "old"}},
          {"id": "tie-new", "request": {"urlPath": "/tie"}, "response": {"body": "new"}}
        ]}
        """#

    @Test func everyMatcherKind() async throws {
        try await withServer(Self.contract, strict: false) { (server: MockServer) async throws in
            let port = server.port
            func fetch(
                _ target: String, method: String = "GET", headers: [(String, String)] = [],
                _ payload: String = ""
            )
                async throws -> String
            {
                let response = try await RawClient.send(
                    port: port, target, method: method, headers: headers, body: Array(payload.utf8))
                return response.status == 404 ? "404" : response.bodyText
            }
            #expect(try await fetch("/items?page=1") == "exact")
            #expect(try await fetch("/items?page=2") == "404")
            #expect(try await fetch("/users/42/posts") == "template")
            #expect(try await fetch("/users//posts") == "404")
            #expect(try await fetch("/files/notes.txt") == "pattern")
            #expect(try await fetch("/files/Notes.txt") == "404")
            #expect(try await fetch("/search?q=learn%20swift") == "query")
            #expect(try await fetch("/search?q=swift&debug=1") == "404")
            let good = [("Authorization", "Bearer abc123"), ("X-Trace", "1"), ("Accept", "application/json")]
            #expect(try await fetch("/secure", headers: good) == "headers")
            #expect(
                try await fetch(
                    "/secure",
                    headers: [
                        ("authorization", "Bearer abc123"), ("x-trace", ""), ("ACCEPT", "application/json"),
                    ]) == "headers")
            #expect(try await fetch("/secure", headers: Array(good.dropFirst())) == "404")
            #expect(try await fetch("/json", method: "POST", #"{"b": [true], "a": 1.0}"#) == "json-equal")
            #expect(
                try await fetch("/json", method: "POST", #"{"user": {"id": 7, "name": "x"}, "more": 1}"#)
                    == "json-subset")
            #expect(try await fetch("/json", method: "POST", #"{"user": {"id": 8}}"#) == "404")
            #expect(try await fetch("/form", method: "POST", "name=Ada+Lovelace&tag=") == "form")
            #expect(try await fetch("/form", method: "POST", "name=Ada") == "404")
            #expect(try await fetch("/prio") == "high")
            #expect(try await fetch("/tie") == "new")
        }
    }

    @Test func stubsAddedInCodeWinTiesAndCanBeRemoved() async throws {
        try await withServer(#"{"id": "a", "request": {"urlPath": "/x"}, "response": {"body": "file"}}"#) {
            server async throws in
            server.addStub(
                StubMapping(
                    id: "b", request: RequestPattern(url: .path("/x")),
                    responses: [StubResponse(body: Array("code".utf8))]))
            #expect(try await RawClient.send(port: server.port, "/x").bodyText == "code")
            #expect(server.removeStub(id: "b"))
            #expect(try await RawClient.send(port: server.port, "/x").bodyText == "file")
        }
    }
}
