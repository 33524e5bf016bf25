import CourierMockServer
import Foundation
import Testing

/// WireMock mapping files served by courier-mock: the shared vocabulary and
/// its translations behave as WireMock's would; every other key is refused
/// with the file and the key named.
struct WireMockImportTests {
    /// A WireMock root written for the test: mappings/ and __files/.
    static func root(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "wiremock-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    static let users = #"""
        {
          "id": "7d5a7e0e-2d1a-4d0c-9d0e-1b2c3d4e5f60",
          "name": "a user",
          "persistent": true,
          "priority": 2,
          "request": {
            "method": "GET",
            "urlPath": "/users/7",
            "queryParameters": {"expand": {"equalTo": "ORDERS", "caseInsensitive": true}},
            "headers": {"Accept": {"contains": "json"}}
          },
          "response": {
            "status": 200,
            "headers": {"Content-Type": "application/json", "Vary": ["Accept", "Accept-Encoding"]},
            "jsonBody": {"id": 7, "name": "Ada"}
          }
        }
        """#

    static let orders = #"""
        {
          "mappings": [
            {
              "request": {"method": "POST", "url": "/orders",
                "bodyPatterns": [{"equalToJson": "{\"item\": \"book\"}", "ignoreExtraElements": true}]},
              "response": {"status": 201, "bodyFileName": "order.json",
                "headers": {"Content-Type": "application/json"}}
            },
            {
              "request": {"method": "GET", "urlPath": "/admin",
                "basicAuthCredentials": {"username": "ada", "password": "s3cret"},
                "cookies": {"session": {"equalTo": "abc"}}},
              "response": {"status": 204}
            },
            {
              "scenarioName": "flaky", "requiredScenarioState": "Started", "newScenarioState": "recovered",
              "request": {"method": "GET", "urlPath": "/flaky"},
              "response": {"fault": "CONNECTION_RESET_BY_PEER"}
            },
            {
              "scenarioName": "flaky", "requiredScenarioState": "recovered",
              "request": {"method": "GET", "urlPath": "/flaky"},
              "response": {"status": 200, "body": "fine now",
                "chunkedDribbleDelay": {"numberOfChunks": 3, "totalDuration": 0}}
            }
          ]
        }
        """#

    @Test func mappingsAnswerAsWireMockWould() async throws {
        let root = try Self.root([
            "mappings/users.json": Self.users, "mappings/orders.json": Self.orders,
            "__files/order.json": #"{"id": 42}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let stubs = try WireMockImport.load(directory: root)
        #expect(stubs.count == 5)
        #expect(stubs.contains { $0.id == "7d5a7e0e-2d1a-4d0c-9d0e-1b2c3d4e5f60" })
        try await withMockServer(.init(stubs: stubs)) { server async throws in
            let port = server.port
            let user = try await RawClient.send(
                port: port, "/users/7?expand=orders", headers: [("Accept", "application/json")])
            #expect(user.status == 200)
            #expect(user.bodyText == #"{"id":7,"name":"Ada"}"#)
            #expect(user.headers.filter { $0.0 == "Vary" }.map(\.1) == ["Accept", "Accept-Encoding"])
            let other = try await RawClient.send(
                port: port, "/users/7?expand=cart", headers: [("Accept", "application/json")])
            #expect(other.status == 404)

            let order = try await RawClient.send(
                port: port, "/orders", method: "POST", body: Array(#"{"item": "book", "qty": 2}"#.utf8))
            #expect(order.status == 201)
            #expect(order.bodyText == #"{"id": 42}"#)

            let basic = "Basic " + Data("ada:s3cret".utf8).base64EncodedString()
            let admin = try await RawClient.send(
                port: port, "/admin",
                headers: [("Authorization", basic), ("Cookie", "theme=dark; session=abc")])
            #expect(admin.status == 204)
            let stranger = try await RawClient.send(
                port: port, "/admin", headers: [("Cookie", "session=abc")])
            #expect(stranger.status == 404)

            let reset = try await RawClient.exchange(port: port, RawClient.request("GET", "/flaky"))
            #expect(reset.response == nil)
            let recovered = try await RawClient.send(port: port, "/flaky")
            #expect(recovered.status == 200)
            #expect(recovered.bodyText == "fine now")
            #expect(recovered.chunkCount == 3)
        }
    }

    @Test func convertedFilesLoadAsContracts() throws {
        let root = try Self.root([
            "mappings/users.json": Self.users, "mappings/orders.json": Self.orders,
            "__files/order.json": #"{"id": 42}"#,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let output = root.appendingPathComponent("contracts")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        for (file, document) in try WireMockImport.converted(directory: root) {
            let target = output.appendingPathComponent(file)
            try Data(document.jsonBytes).write(to: target, options: [])
        }
        try FileManager.default.copyItem(
            at: root.appendingPathComponent("__files"), to: output.appendingPathComponent("__files"))
        let contracts = try ContractLoader.load(directory: output)
        #expect(contracts.map(\.id).sorted() == (try WireMockImport.load(directory: root)).map(\.id).sorted())
    }

    @Test(arguments: [
        (
            #"{"request": {"urlPath": "/a"}, "response": {"status": 200, "transformers": ["response-template"]}}"#,
            "$.response.transformers"
        ),
        (
            #"{"request": {"urlPath": "/a"}, "response": {"proxyBaseUrl": "https://example.com"}}"#,
            "$.response.proxyBaseUrl"
        ),
        (
            #"{"request": {"urlPath": "/a"}, "response": {"status": 200, "statusMessage": "Fine"}}"#,
            "$.response.statusMessage"
        ),
        (#"{"request": {"urlPattern": "/a.*"}, "response": {"status": 200}}"#, "$.request.urlPattern"),
        (
            #"{"request": {"urlPath": "/a", "bodyPatterns": [{"matchesJsonPath": "$.id"}]}, "response": {}}"#,
            "$.request.bodyPatterns[0].matchesJsonPath"
        ),
        (
            #"{"request": {"urlPath": "/a", "headers": {"X": {"doesNotMatch": "y"}}}, "response": {}}"#,
            "$.request.headers.X.doesNotMatch"
        ),
        (
            #"{"request": {"urlPath": "/a"}, "response": {"delayDistribution": {"type": "lognormal", "median": 80}}}"#,
            "$.response.delayDistribution.type"
        ),
        (#"{"request": {"urlPath": "/a"}, "response": {"fault": "SOMETHING_ELSE"}}"#, "$.response.fault"),
        (
            #"{"request": {"urlPath": "/a"}, "response": {}, "postServeActions": [{"name": "webhook"}]}"#,
            "$.postServeActions"
        ),
    ])
    func refusedKeysNameTheFileAndTheKey(mapping: String, path: String) throws {
        let root = try Self.root(["mappings/refused.json": mapping])
        defer { try? FileManager.default.removeItem(at: root) }
        do {
            _ = try WireMockImport.load(directory: root)
            Issue.record("\(path) was accepted")
        } catch {
            #expect(error.file == "refused.json")
            #expect(error.path == path, "\(error)")
        }
    }
}

/// Recording switched on and off on a running server through the admin API.
struct AdminRecordingTests {
    @Test func startForwardThenStopReturnsTheMappings() async throws {
        let api = #"{"id": "hi", "request": {"urlPath": "/hi"}, "response": {"body": "hello"}}"#
        try await withServer(api) { real async throws in
            try await withServer { proxy async throws in
                let target = Array(#"{"target": "\#(real.baseURL)"}"#.utf8)
                let started = try await RawClient.send(
                    port: proxy.port, "/__admin/recordings/start", method: "POST", body: target)
                #expect(started.status == 200)
                let through = try await RawClient.send(port: proxy.port, "/hi")
                #expect(through.bodyText == "hello")
                let stopped = try await RawClient.send(
                    port: proxy.port, "/__admin/recordings/stop", method: "POST")
                let object = try JSONSerialization.jsonObject(with: Data(stopped.body)) as? [String: Any]
                #expect(object?["recorded"] as? Int == 1)
                let mapping = (object?["mappings"] as? [[String: Any]])?.first
                #expect((mapping?["request"] as? [String: Any])?["urlPath"] as? String == "/hi")
                // Stopped: the proxy answers from its own stubs again (none: 404).
                #expect(try await RawClient.send(port: proxy.port, "/hi").status == 404)
                let again = try await RawClient.send(
                    port: proxy.port, "/__admin/recordings/stop", method: "POST")
                #expect(again.status == 409)
            }
        }
    }
}
