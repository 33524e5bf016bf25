import Foundation

/// What each admin route does (the table is ``AdminAPI/routes``).
extension AdminAPI {
    func mappings() -> StubResponse {
        .json(.object(["mappings": .array(core.registry.stubs().map(Self.summary))]))
    }

    func addMappings(_ body: [UInt8]) -> StubResponse {
        do {
            let stubs = try ContractLoader.parse(body, file: "<admin>")
            for stub in stubs { core.registry.add(stub) }
            return .json(.object(["added": .array(stubs.map { .string($0.id) })]), status: 201)
        } catch {
            return self.error(400, error.description)
        }
    }

    func removeMapping(_ id: String) -> StubResponse {
        core.registry.remove(id: id)
            ? .json(.object(["removed": .string(id)])) : error(404, "no stub \"\(id)\"")
    }

    static func page() -> StubResponse {
        StubResponse(
            headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array(AdminPage.html.utf8))
    }

    /// The journal's entries after sequence `since`, or the one entry
    /// `sequence` (a WebSocket's, re-read while its frames come in).
    func journal(_ request: RecordedRequest) -> StubResponse {
        let since = request.queryValue("since").flatMap(Int.init) ?? 0
        let only = request.queryValue("sequence").flatMap(Int.init)
        let entries = core.journal.entries.filter { entry in
            if let only { return entry.sequence == only }
            return entry.sequence > since
        }
        return encode(
            ["requests": entries], meta: core.journal.dropped,
            responseBodies: request.queryValue("responseBodies") == "1")
    }

    func har(_ request: RecordedRequest) -> StubResponse {
        let host = request.header("Host").map { "http://\($0)" } ?? ""
        let har = HARExport.document(core.journal.entries, startDate: core.startDate, serverURL: host)
        return StubResponse(status: 200, headers: [("Content-Type", "application/json")], body: har.jsonBytes)
    }

    func clearJournal() -> StubResponse {
        core.journal.clear()
        return .json(.object(["cleared": .bool(true)]))
    }

    func reset() -> StubResponse {
        core.journal.clear()
        core.registry.reset(restoreMappings: true)
        return .json(.object(["reset": .bool(true)]))
    }

    func scenarios() -> StubResponse {
        let scenarios = core.registry.scenarios().sorted { $0.key < $1.key }.map { name, state in
            JSONValue.object([
                "name": .string(name), "state": .string(state),
                "possibleStates": .array(core.registry.possibleStates(of: name).map(JSONValue.string)),
            ])
        }
        return .json(.object(["scenarios": .array(scenarios)]))
    }

    /// `{"state": "…"}` for the scenario named (form-encoded) in the path.
    func setScenario(_ encodedName: String, _ body: [UInt8]) -> StubResponse {
        guard case .object(let object)? = try? JSONValue.parse(body),
            case .string(let state)? = object["state"]
        else { return error(400, "expected {\"state\": \"…\"}") }
        let name = FormDecoding.decode(Substring(encodedName))
        return core.registry.setScenario(name, to: state)
            ? .json(.object(["name": .string(name), "state": .string(state)]))
            : error(404, "no scenario \"\(name)\"")
    }

    func resetScenarios() -> StubResponse {
        core.registry.resetScenarios()
        return .json(.object(["reset": .bool(true)]))
    }

    /// `{"faults": ["stallAfterAccept" | "resetAfterAccept", …]}`.
    func queueConnectionFaults(_ body: [UInt8]) -> StubResponse {
        guard case .object(let object)? = try? JSONValue.parse(body),
            case .array(let names)? = object["faults"]
        else { return error(400, "expected {\"faults\": [\"stallAfterAccept\" | \"resetAfterAccept\"]}") }
        var faults: [ConnectionFault] = []
        for name in names {
            guard case .string(let text) = name, let fault = ConnectionFault(rawValue: text) else {
                return error(400, "unknown connection fault \(name)")
            }
            faults.append(fault)
        }
        core.queue(faults)
        return .json(.object(["queued": .int(Int64(faults.count))]))
    }

    /// Stops recording; the recorded exchanges as mappings.
    func stopRecording() -> StubResponse {
        guard let recorder = core.setRecorder(nil) else { return error(409, "not recording") }
        Task { await recorder.shutdown() }
        let exchanges = recorder.recorded
        let mappings = RecordingWriter(options: recorder.options).output(exchanges).files.flatMap {
            file -> [JSONValue] in
            guard case .object(let object) = file.document, case .array(let list)? = object["mappings"] else {
                return []
            }
            return list
        }
        return .json(.object(["recorded": .int(Int64(exchanges.count)), "mappings": .array(mappings)]))
    }

    func verify() -> StubResponse {
        let problems = core.registry.problems()
        return .json(
            .object(["ok": .bool(problems.isEmpty), "problems": .array(problems.map(JSONValue.string))]),
            status: problems.isEmpty ? 200 : 409)
    }

    func count(_ request: RecordedRequest) -> Int {
        let stub = request.queryValue("stubId")
        let method = request.queryValue("method")?.uppercased()
        let path = request.queryValue("path")
        return core.journal.entries.filter { entry in
            (stub == nil || entry.stubID == stub) && (method == nil || entry.request.method == method)
                && (path == nil || entry.request.path == path)
        }.count
    }

    func encode(_ value: [String: [JournalEntry]], meta dropped: Int, responseBodies: Bool = false)
        -> StubResponse
    {
        struct Page: Encodable {
            let requests: [JournalEntry]
            let dropped: Int
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if responseBodies { encoder.userInfo[RecordedResponse.includeBodyKey] = true }
        guard let data = try? encoder.encode(Page(requests: value["requests"] ?? [], dropped: dropped)) else {
            return error(500, "the journal could not be encoded")
        }
        return StubResponse(headers: [("Content-Type", "application/json")], body: Array(data))
    }

    static func summary(_ item: (stub: StubMapping, hits: Int)) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(item.stub.id), "priority": .int(Int64(item.stub.priority)),
            "required": .bool(item.stub.required), "responses": .int(Int64(item.stub.responses.count)),
            "hits": .int(Int64(item.hits)), "exhausted": .string(item.stub.exhausted.rawValue),
        ]
        if let method = item.stub.request.method { object["method"] = .string(method) }
        switch item.stub.request.url {
        case .exact(let url)?: object["url"] = .string(url)
        case .path(let path)?: object["urlPath"] = .string(path)
        case .template(let template)?: object["urlPathTemplate"] = .string(template)
        case .pattern(let pattern)?: object["urlPathPattern"] = .string(pattern)
        case nil: break
        }
        if let scenario = item.stub.scenario { object["scenarioName"] = .string(scenario.name) }
        return .object(object)
    }

    /// `{"target": "https://api.example.com", "caFile": "…", "secretHeaders": […], "secretFields": […]}`.
    func startRecording(_ body: [UInt8]) -> StubResponse {
        guard case .object(let object)? = try? JSONValue.parse(body),
            case .string(let target)? = object["target"]
        else { return error(400, "expected {\"target\": \"https://…\"}") }
        var options = RecordingOptions(target: target)
        if case .string(let file)? = object["caFile"] { options.caFile = file }
        if case .array(let names)? = object["secretHeaders"] {
            options.secretHeaders += names.compactMap { if case .string(let name) = $0 { name } else { nil } }
        }
        if case .array(let names)? = object["secretFields"] {
            options.secretFields += names.compactMap { if case .string(let name) = $0 { name } else { nil } }
        }
        do {
            let previous = core.setRecorder(try Recorder(options))
            if let previous { Task { await previous.shutdown() } }
        } catch let error as RecordingUnavailable {
            return self.error(501, "\(error)")
        } catch {
            return self.error(400, "cannot record \(target): \(error)")
        }
        return .json(.object(["recording": .string(target)]))
    }
}
