import CourierMockServer
import Foundation
import Testing

struct SequenceAndScenarioTests {
    @Test func sequencesThenRepeatLast() async throws {
        let json = #"""
            {"id": "flaky", "request": {"urlPath": "/flaky"},
             "responses": [{"status": 503}, {"status": 502}, {"status": 200, "body": "ok"}]}
            """#
        try await withServer(json) { server async throws in
            var statuses: [Int] = []
            for _ in 0..<5 { statuses.append(try await RawClient.send(port: server.port, "/flaky").status) }
            #expect(statuses == [503, 502, 200, 200, 200])
            #expect(server.journal.entries(stub: "flaky").map(\.responseIndex) == [0, 1, 2, 2, 2])
            try server.verify()
        }
    }

    @Test func exhaustedFailAnswers500AndFailsVerification() async throws {
        let json =
            #"{"id": "once", "request": {"urlPath": "/once"}, "responses": [{"status": 200}], "exhausted": "fail"}"#
        try await withServer(json) { server async throws in
            #expect(try await RawClient.send(port: server.port, "/once").status == 200)
            let second = try await RawClient.send(port: server.port, "/once")
            #expect(second.status == 500)
            #expect(second.bodyText.contains("sequence exhausted"))
            #expect(throws: MockVerificationError.self) { try server.verify() }
        }
    }

    @Test func scenariosMoveBetweenStates() async throws {
        let json = #"""
            {"mappings": [
              {"id": "login", "scenarioName": "auth", "requiredScenarioState": "Started", "newScenarioState": "in",
               "request": {"method": "POST", "urlPath": "/login"}, "response": {"status": 204}},
              {"id": "me-out", "scenarioName": "auth", "requiredScenarioState": "Started",
               "request": {"urlPath": "/me"}, "response": {"status": 401}},
              {"id": "me-in", "scenarioName": "auth", "requiredScenarioState": "in",
               "request": {"urlPath": "/me"}, "response": {"status": 200, "body": "ada"}}
            ]}
            """#
        try await withServer(json) { server async throws in
            #expect(try await RawClient.send(port: server.port, "/me").status == 401)
            #expect(try await RawClient.send(port: server.port, "/login", method: "POST").status == 204)
            #expect(try await RawClient.send(port: server.port, "/me").bodyText == "ada")
            let login = try #require(server.journal.entries(stub: "login").first)
            #expect(login.scenarioName == "auth")
            #expect(login.scenarioStateBefore == "Started")
            #expect(login.scenarioStateAfter == "in")
            #expect(server.scenarioStates == ["auth": "in"])

            #expect(server.setScenario("auth", to: "Started"))
            #expect(try await RawClient.send(port: server.port, "/me").status == 401)
            #expect(!server.setScenario("nope", to: "x"))
        }
    }

    @Test func requiredStubsNeverHitFailVerification() async throws {
        let json = #"""
            {"mappings": [{"id": "needed", "required": true, "request": {"urlPath": "/needed"}, "response": {}},
                          {"id": "optional", "request": {"urlPath": "/optional"}, "response": {}}]}
            """#
        try await withServer(json) { server async throws in
            do {
                try server.verify()
                Issue.record("verify passed without the required stub")
            } catch let error as MockVerificationError {
                #expect(error.problems == ["required stub \"needed\" was never hit"])
            } catch {
                Issue.record("unexpected \(error)")
            }
            _ = try await RawClient.send(port: server.port, "/needed")
            try server.verify()
        }
    }

    @Test func seededRandomDelaysRepeat() throws {
        let json = #"""
            {"request": {}, "response": {"delayDistribution": {"type": "uniform", "lower": 10, "upper": 20, "seed": 7}}}
            """#
        let stub = try #require(try stubs(json).first)
        #expect(stub.responses[0].delay == .uniform(lowerMs: 10, upperMs: 20, seed: 7))
    }
}

struct StrictModeTests {
    @Test func unmatchedRequestsGetANearMissReportAndFailVerification() async throws {
        let json = #"""
            {"mappings": [
              {"id": "user", "request": {"method": "GET", "urlPath": "/users/7", "headers": {"Authorization": {"matches": "Bearer .+"}}},
               "response": {}},
              {"id": "other", "request": {"method": "DELETE", "urlPath": "/elsewhere"}, "response": {}}
            ]}
            """#
        try await withServer(json) { server async throws in
            let response = try await RawClient.send(port: server.port, "/users/7")
            #expect(response.status == 404)
            #expect(response.bodyText.contains(#""stub":"user""#))
            #expect(response.bodyText.contains(#"header authorization matches /Bearer .+/"#))
            #expect(response.bodyText.contains(#""actual":"(absent)""#))
            // The closest stub comes first.
            let first = try #require(response.bodyText.range(of: #""stub":"user""#))
            let second = try #require(response.bodyText.range(of: #""stub":"other""#))
            #expect(first.lowerBound < second.lowerBound)
            #expect(server.journal.unmatched.count == 1)
            do {
                try server.verify()
                Issue.record("verify passed after an unmatched request")
            } catch let error as MockVerificationError {
                #expect(error.problems.first?.hasPrefix("no stub matched GET /users/7") == true)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func lenientModeStillAnswers404ButDoesNotFail() async throws {
        try await withServer(strict: false) { server async throws in
            #expect(try await RawClient.send(port: server.port, "/nothing").status == 404)
            try server.verify()
        }
    }
}

struct EnvelopeAndDelayTests {
    func body(_ envelope: String) async throws -> ParsedResponse {
        let json = #"{"id": "e", "request": {"urlPath": "/e"}, "response": {"envelope": \#(envelope)}}"#
        return try await withServer(json) { server async throws in
            try await RawClient.send(port: server.port, "/e")
        }
    }

    @Test func envelopeShorthandAndCustomKeys() async throws {
        let plain = try await body(#"{"code": 0, "msg": "ok", "data": {"id": 7}}"#)
        #expect(plain.header("Content-Type") == "application/json")
        #expect(
            try JSONValue.parse(plain.body)
                == .object(["code": .int(0), "msg": .string("ok"), "data": .object(["id": .int(7)])]))
        let renamed = try await body(
            #"{"code": "E1", "msg": "no", "keys": {"code": "status", "msg": "desc", "data": "result"}}"#)
        #expect(
            try JSONValue.parse(renamed.body)
                == .object(["status": .string("E1"), "desc": .string("no"), "result": .null]))
    }

    @Test(arguments: EnvelopePreset.allCases)
    func presetsBreakTheEnvelopeAsNamed(preset: EnvelopePreset) async throws {
        let response = try await body(
            #"{"code": 0, "msg": "ok", "data": {"id": 7}, "preset": "\#(preset.rawValue)"}"#)
        let parsed = try? JSONValue.parse(response.body)
        switch preset {
        case .missingCode:
            #expect(parsed == .object(["msg": .string("ok"), "data": .object(["id": .int(7)])]))
        case .codeAsString:
            #expect(
                parsed
                    == .object(["code": .string("0"), "msg": .string("ok"), "data": .object(["id": .int(7)])])
            )
        case .dataWrongType:
            #expect(
                parsed == .object(["code": .int(0), "msg": .string("ok"), "data": .string("not an object")]))
        case .truncatedJSON:
            #expect(parsed == nil)
            #expect(response.bodyText.hasPrefix("{"))
        case .htmlGatewayPage:
            #expect(response.status == 502)
            #expect(response.header("Content-Type") == "text/html")
            #expect(response.bodyText.contains("502 Bad Gateway"))
        case .wrongContentType:
            #expect(response.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(parsed != nil)
        case .bom:
            #expect(Array(response.body.prefix(3)) == [0xEF, 0xBB, 0xBF])
            #expect((try? JSONValue.parse(response.body.dropFirst(3))) != nil)
        }
    }

    @Test func seededRandomDelaysRepeatAcrossServers() async throws {
        let json = #"""
            {"id": "d", "request": {"urlPath": "/d"},
             "response": {"delayDistribution": {"type": "uniform", "lower": 1, "upper": 9, "seed": 42}}}
            """#
        func delays() async throws -> [Int?] {
            try await withServer(json) { server async throws in
                for _ in 0..<4 { _ = try await RawClient.send(port: server.port, "/d") }
                return server.journal.entries(stub: "d").map(\.delayMs)
            }
        }
        let first = try await delays()
        #expect(first == (try await delays()))
        #expect(first.allSatisfy { ($0 ?? 0) >= 1 && ($0 ?? 0) <= 9 })
    }
}
