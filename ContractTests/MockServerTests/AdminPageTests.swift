import CourierMockServer
import Foundation
import Testing

/// What the journal page reads: the page itself, entries after a sequence
/// number, and an unmatched request's near misses in its entry.
struct AdminPageTests {
    @Test func thePageAndWhatItPolls() async throws {
        let stubs = #"""
            {"mappings": [{"id": "orders", "request": {"method": "POST", "urlPath": "/orders",
              "bodyPatterns": [{"equalToJson": {"item": "book"}}]}, "response": {"status": 201}}]}
            """#
        try await withServer(stubs, strict: false) { server async throws in
            let page = try await RawClient.send(port: server.port, "/__admin/ui")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.bodyText.contains("/__admin/requests?responseBodies=1&since="))
            // No external assets.
            #expect(!page.bodyText.contains("http://") && !page.bodyText.contains("https://"))

            _ = try await RawClient.send(
                port: server.port, "/orders", method: "POST", body: Array(#"{"item":"book"}"#.utf8))
            _ = try await RawClient.send(
                port: server.port, "/orders", method: "POST", body: Array(#"{"item":"pen"}"#.utf8))
            let after = try await RawClient.send(
                port: server.port, "/__admin/requests?since=1&responseBodies=1")
            let object = try JSONSerialization.jsonObject(with: Data(after.body)) as? [String: Any]
            let requests = object?["requests"] as? [[String: Any]] ?? []
            #expect(requests.map { $0["sequence"] as? Int } == [2])
            let misses = requests.first?["nearMisses"] as? [[String: Any]] ?? []
            #expect(misses.first?["stubID"] as? String == "orders")
            let failed = misses.first?["failed"] as? [[String: Any]] ?? []
            #expect((failed.first?["matcher"] as? String)?.contains("equalToJson") == true)
            let response = requests.first?["response"] as? [String: Any]
            #expect((response?["body"] as? String)?.contains("no stub matched") == true)
        }
    }
}
