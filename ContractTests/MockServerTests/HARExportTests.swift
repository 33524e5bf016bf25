import CourierMockServer
import Foundation
import Testing

/// `GET /__admin/requests/har`: the journal as HAR 1.2, each exchange with
/// the request as received and the answer planned.
struct HARExportTests {
    static let stubs = #"""
        {"mappings": [
          {"id": "user", "request": {"method": "GET", "urlPath": "/users/7"},
           "response": {"jsonBody": {"id": 7, "name": "Ada"}, "headers": {"X-Trace": "t-1"}}},
          {"id": "order", "request": {"method": "POST", "urlPath": "/orders"},
           "response": {"status": 201, "jsonBody": {"id": 42}}},
          {"id": "bytes", "request": {"urlPath": "/blob"}, "response": {"base64Body": "AP8BAg=="}},
          {"id": "events", "request": {"urlPath": "/events"},
           "response": {"eventStream": {"events": [{"id": "1", "data": "a"}]}}}
        ]}
        """#

    func object(_ value: Any?) -> [String: Any] { value as? [String: Any] ?? [:] }
    func array(_ value: Any?) -> [[String: Any]] { value as? [[String: Any]] ?? [] }
    func pairs(_ value: Any?) -> [String: String] {
        Dictionary(
            array(value).compactMap { pair in
                (pair["name"] as? String).map { ($0, pair["value"] as? String ?? "") }
            }, uniquingKeysWith: { first, _ in first })
    }

    @Test func theJournalAsAnHTTPArchive() async throws {
        try await withServer(Self.stubs) { server async throws in
            _ = try await RawClient.send(port: server.port, "/users/7?expand=a%20b&x=1")
            _ = try await RawClient.send(
                port: server.port, "/orders", method: "POST", headers: [("Content-Type", "application/json")],
                body: Array(#"{"item":"book"}"#.utf8))
            _ = try await RawClient.send(port: server.port, "/blob")
            _ = try await RawClient.send(port: server.port, "/events")
            _ = try await RawClient.send(port: server.port, "/nowhere")
            let exported = try await RawClient.send(port: server.port, "/__admin/requests/har")
            #expect(exported.status == 200)
            let har = object(try JSONSerialization.jsonObject(with: Data(exported.body)))
            let log = object(har["log"])
            #expect(log["version"] as? String == "1.2")
            #expect(object(log["creator"])["name"] as? String == "courier-mock")
            let entries = array(log["entries"])
            #expect(entries.count == 5)  // admin requests are not journaled
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            for entry in entries {
                #expect(formatter.date(from: entry["startedDateTime"] as? String ?? "") != nil)
                #expect((entry["time"] as? Double ?? -1) >= 0)
                let timings = object(entry["timings"])
                #expect(["send", "wait", "receive"].allSatisfy { (timings[$0] as? Double ?? -1) >= 0 })
            }
            guard entries.count == 5 else { return }

            let user = entries[0]
            let request = object(user["request"])
            #expect(request["method"] as? String == "GET")
            // The URL as the client asked for it: its Host header and request target.
            #expect(request["url"] as? String == "http://127.0.0.1/users/7?expand=a%20b&x=1")
            #expect(pairs(request["queryString"]) == ["expand": "a b", "x": "1"])
            let response = object(user["response"])
            #expect(response["status"] as? Int == 200)
            #expect(response["statusText"] as? String == "OK")
            #expect(pairs(response["headers"])["X-Trace"] == "t-1")
            let content = object(response["content"])
            #expect(content["mimeType"] as? String == "application/json")
            #expect(content["text"] as? String == #"{"id":7,"name":"Ada"}"#)
            #expect(object(user["_courier"])["stubID"] as? String == "user")

            let order = entries[1]
            #expect(object(object(order["request"])["postData"])["text"] as? String == #"{"item":"book"}"#)
            #expect(object(order["response"])["status"] as? Int == 201)

            let blob = object(object(entries[2]["response"])["content"])
            #expect(blob["encoding"] as? String == "base64")
            #expect(blob["text"] as? String == "AP8BAg==")
            #expect(blob["size"] as? Int == 4)

            let events = object(object(entries[3]["response"])["content"])
            #expect(events["mimeType"] as? String == "text/event-stream")
            #expect(events["size"] as? Int == -1)

            let missed = entries[4]
            #expect(object(missed["response"])["status"] as? Int == 404)
            #expect(object(missed["_courier"])["unmatched"] as? Bool == true)
        }
    }
}
