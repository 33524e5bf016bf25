import CourierMockServer
import Foundation
import NIOCore
import Testing

struct JournalTests {
    @Test func recordsConnectionsExchangesHeadersBodyAndTimestamps() async throws {
        let json =
            #"{"id": "echo", "request": {"method": "POST", "urlPath": "/echo"}, "response": {"status": 201}}"#
        try await withServer(json) { server async throws in
            // Two requests on one keep-alive connection, then one on a new connection.
            let first = RawClient.request(
                "POST", "/echo?x=1",
                headers: [("X-Dup", "a"), ("x-dup", "b"), ("Content-Type", "text/plain")],
                body: Array("hello".utf8), close: false)
            let second = RawClient.request("POST", "/echo", body: Array("again".utf8))
            let seen = try await RawClient.exchange(port: server.port, first + second)
            #expect(seen.text.components(separatedBy: "HTTP/1.1 201").count == 3)
            _ = try await RawClient.send(
                port: server.port, "/echo", method: "POST", body: Array("third".utf8))

            let entries = try await server.journal.waitFor(3, stub: "echo")
            #expect(entries.map(\.sequence) == [1, 2, 3])
            #expect(entries.map(\.connectionIndex) == [1, 1, 2])
            #expect(entries.map(\.exchangeIndex) == [1, 2, 1])
            let entry = entries[0]
            #expect(
                entry.request.headers.map(\.name) == [
                    "Host", "X-Dup", "x-dup", "Content-Type", "Content-Length",
                ])
            #expect(entry.request.headerValues("X-DUP") == ["a", "b"])
            #expect(entry.request.bodyText == "hello")
            #expect(entry.request.uri == "/echo?x=1")
            #expect(entry.status == 201)
            #expect(entry.responseIndex == 0)
            #expect(entry.remoteAddress.hasPrefix("127.0.0.1:"))
            let done = try #require(try await server.journal.waitFor(3) { $0.timestamps.responseEnd != nil })
            for item in done {
                let t = item.timestamps
                let order = [
                    t.accepted, t.firstByte, t.headersDone, t.bodyDone ?? 0, t.responseStart ?? 0,
                    t.responseEnd ?? 0,
                ]
                #expect(order == order.sorted(), "timestamps out of order: \(order)")
                #expect(item.bytesWritten > 0)
            }
        }
    }

    @Test func recordsWhenAClientGivesUpOnAStalledAnswer() async throws {
        let json = #"{"id": "s", "request": {"urlPath": "/s"}, "response": {"fault": "stall"}}"#
        try await withServer(json) { server async throws in
            let channel = try await RawClient.connect(port: server.port)
            try await channel.executeThenClose { _, outbound in
                try await outbound.write(ByteBuffer(bytes: RawClient.request("GET", "/s", close: false)))
                let pending = try await server.journal.waitFor(1, stub: "s")
                #expect(pending.first?.timestamps.connectionClosed == nil)
            }
            // The client closed the connection (leaving executeThenClose).
            let closed = try await server.journal.waitFor(1) { $0.timestamps.connectionClosed != nil }
            let entry = try #require(closed.first)
            #expect(entry.stubID == "s")
            #expect((entry.timestamps.connectionClosed ?? 0) >= entry.timestamps.headersDone)
        }
    }

    @Test func isBoundedAndCountsWhatItDropped() async throws {
        try await withServer(journalCapacity: 3) { server async throws in
            for index in 0..<5 { _ = try await RawClient.send(port: server.port, "/status/\(200 + index)") }
            let entries = server.journal.entries
            #expect(entries.map(\.status) == [202, 203, 204])
            #expect(server.journal.dropped == 2)
            #expect(entries.map(\.builtinRoute) == Array(repeating: "/status/{code}", count: 3))
        }
    }

    @Test func waitingHasADeadline() async throws {
        try await withServer { server async throws in
            await #expect(throws: JournalTimeout.self) {
                try await server.journal.waitFor(1, deadline: .milliseconds(1))
            }
        }
    }
}

struct AdminTests {
    func admin(_ server: MockServer, _ method: String, _ path: String, _ body: String = "") async throws
        -> (Int, JSONValue)
    {
        let response = try await RawClient.send(
            port: server.port, path, method: method, body: Array(body.utf8))
        return (response.status, try JSONValue.parse(response.body))
    }

    @Test func mappingsRequestsScenariosAndVerify() async throws {
        let json = #"""
            {"mappings": [{"id": "a", "request": {"urlPath": "/a"}, "response": {"status": 200}},
              {"id": "s1", "scenarioName": "flow", "requiredScenarioState": "Started", "newScenarioState": "two",
               "request": {"urlPath": "/s"}, "response": {"body": "one"}},
              {"id": "s2", "scenarioName": "flow", "requiredScenarioState": "two", "request": {"urlPath": "/s"},
               "response": {"body": "two"}}]}
            """#
        try await withServer(json) { server async throws in
            #expect(try await admin(server, "GET", "/__admin/health").1 == .object(["status": .string("ok")]))

            let (status, added) = try await admin(
                server, "POST", "/__admin/mappings",
                #"{"id": "b", "request": {"urlPath": "/b"}, "response": {"status": 202}}"#)
            #expect(status == 201)
            #expect(added == .object(["added": .array([.string("b")])]))
            #expect(try await RawClient.send(port: server.port, "/b").status == 202)

            let (badStatus, bad) = try await admin(
                server, "POST", "/__admin/mappings", #"{"request": {}, "response": {"status": "x"}}"#)
            #expect(badStatus == 400)
            #expect(bad.description.contains("<admin>: $.response.status"))

            guard case .object(let listing) = try await admin(server, "GET", "/__admin/mappings").1,
                case .array(let mappings)? = listing["mappings"]
            else { throw RawClientError("no mappings list") }
            #expect(mappings.count == 4)

            _ = try await RawClient.send(port: server.port, "/a")
            #expect(
                try await admin(server, "GET", "/__admin/requests/count?stubId=a").1
                    == .object(["count": .int(1)]))
            guard case .object(let page) = try await admin(server, "GET", "/__admin/requests").1,
                case .array(let requests)? = page["requests"]
            else { throw RawClientError("no journal") }
            #expect(requests.count == 2)

            #expect(try await RawClient.send(port: server.port, "/s").bodyText == "one")
            let scenarios = try await admin(server, "GET", "/__admin/scenarios").1.description
            #expect(scenarios.contains(#""name":"flow""#) && scenarios.contains(#""state":"two""#))
            #expect(
                try await admin(server, "PUT", "/__admin/scenarios/flow/state", #"{"state": "Started"}"#).0
                    == 200)
            #expect(try await RawClient.send(port: server.port, "/s").bodyText == "one")
            #expect(try await admin(server, "POST", "/__admin/scenarios/reset").0 == 200)
            #expect(server.scenarioStates == ["flow": "Started"])
            #expect(
                try await admin(server, "PUT", "/__admin/scenarios/none/state", #"{"state": "x"}"#).0 == 404)

            #expect(try await admin(server, "GET", "/__admin/verify").0 == 200)
            _ = try await RawClient.send(port: server.port, "/unknown")
            #expect(try await admin(server, "GET", "/__admin/verify").0 == 409)

            #expect(try await admin(server, "POST", "/__admin/reset").0 == 200)
            #expect(server.journal.entries.isEmpty)
            #expect(try await RawClient.send(port: server.port, "/b").status == 404)
            #expect(try await admin(server, "DELETE", "/__admin/mappings/a").0 == 200)
            #expect(try await admin(server, "GET", "/__admin/nothing").0 == 404)
        }
    }

    @Test func connectionFaultsCanBeQueued() async throws {
        try await withServer { server async throws in
            #expect(
                try await admin(server, "POST", "/__admin/connection-faults", #"{"faults": ["nope"]}"#).0
                    == 400)
            let (status, _) = try await admin(
                server, "POST", "/__admin/connection-faults", #"{"faults": ["resetAfterAccept"]}"#)
            #expect(status == 200)
            // The queued fault hits the next connection.
            let hit = try? await RawClient.exchange(
                port: server.port, RawClient.request("GET", "/status/200"))
            #expect(hit?.bytes.isEmpty ?? true)
            #expect(try await RawClient.send(port: server.port, "/status/200").status == 200)
        }
    }

    @Test func aRouteAnswersOnlyItsMethodsAndSaysWhichItTakes() async throws {
        try await withServer { server async throws in
            let wrongMethod = try await RawClient.send(
                port: server.port, "/__admin/mappings", method: "PATCH")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "GET, POST")
            let onlyPut = try await RawClient.send(port: server.port, "/__admin/scenarios/flow/state")
            #expect(onlyPut.status == 405)
            #expect(onlyPut.header("Allow") == "PUT")
            let noRoute = try await RawClient.send(port: server.port, "/__admin/mappings/a/b")
            #expect(noRoute.status == 404)
            #expect(noRoute.header("Allow") == nil)
        }
    }

    @Test func adminRequestsAreNotJournaled() async throws {
        try await withServer { server async throws in
            _ = try await admin(server, "GET", "/__admin/health")
            #expect(server.journal.entries.isEmpty)
        }
    }
}
