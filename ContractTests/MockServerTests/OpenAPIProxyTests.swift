import CourierMockServer
import Foundation
import Testing

/// `record --openapi`: while recording, the client's requests and the real
/// API's answers are both checked against the document, so a team sees
/// where its server drifted from it. The "real API" here is a second
/// courier-mock whose stubs drift from ContractTests/OpenAPI/Validation/api.yaml.
@Suite struct OpenAPIProxyTests {
    static let drifted: [StubMapping] = [
        // A book without its required authors, and a year as a string.
        StubMapping(
            id: "book", request: RequestPattern(method: "GET", url: .path("/books/9780441013593")),
            responses: [
                .json(
                    .object([
                        "id": .string("6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f"),
                        "isbn": .string("9780441013593"),
                        "title": .string("Dune"), "year": .string("1965"),
                    ]))
            ]),
        // The list without its required X-Total-Count, as text.
        StubMapping(
            id: "list", request: RequestPattern(method: "GET", url: .path("/books")),
            responses: [
                StubResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("[]".utf8))
            ]),
        // A status the document does not list.
        StubMapping(
            id: "remove", request: RequestPattern(method: "DELETE", url: .path("/books/9780441013593")),
            responses: [StubResponse(status: 202)]),
    ]

    @Test func bothSidesAreCheckedAndTheFindingsJournaled() async throws {
        try await withMockServer(.init(stubs: Self.drifted, builtinRoutes: false)) { api async throws in
            var configuration = MockServer.Configuration(
                strict: true, recording: RecordingOptions(target: api.baseURL))
            configuration.openAPI = OpenAPIServeTests.document
            try await withMockServer(configuration) { proxy async throws in
                let bearer = ("Authorization", "Bearer t")
                let book = try await RawClient.send(
                    port: proxy.port, "/books/9780441013593",
                    headers: [bearer, ("X-Request-Id", "6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f")])
                // The API's answer is passed on as it is: the proxy reports, it does not refuse.
                #expect(book.status == 200)
                _ = try await RawClient.send(port: proxy.port, "/books?limit=500")
                _ = try await RawClient.send(
                    port: proxy.port, "/books/9780441013593", method: "DELETE", headers: [("X-Api-Key", "k")])
                let entries = proxy.journal.entries
                #expect(entries.count == 3)
                func rules(_ index: Int) -> Set<String> {
                    Set((entries[index].findings ?? []).map { "\($0.rule) \($0.pointer)" })
                }
                #expect(entries.map(\.operationID) == ["getBook", "listBooks", "removeBook"])
                #expect(
                    rules(0) == ["schema/required /response/body/authors", "schema/type /response/body/year"])
                #expect(
                    rules(1) == [
                        "schema/maximum /query/limit", "response/header /response/header/X-Total-Count",
                        "response/content-type /response/header/Content-Type",
                    ])
                #expect(rules(2) == ["response/status /response/status"])
                #expect(throws: MockVerificationError.self) { try proxy.verify() }
            }
        }
    }
}
