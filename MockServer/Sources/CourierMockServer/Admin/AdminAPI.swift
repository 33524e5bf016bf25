import Foundation

/// The WireMock-shaped admin API under `/__admin`, loopback-only unless the
/// server allows remote administration.
///
/// | method and path | what it does |
/// |---|---|
/// | `GET /__admin/health` | `{"status":"ok"}` |
/// | `GET /__admin/mappings` | the stubs, match order, with hit counts |
/// | `POST /__admin/mappings` | add a stub (or `{"mappings": […]}`); 400 names the bad field |
/// | `DELETE /__admin/mappings/{id}` | remove a stub |
/// | `GET /__admin/ui` | the live journal page (``AdminPage``) |
/// | `GET /__admin/requests?since=` | the journal (entries after sequence `since`) |
/// | `GET /__admin/requests/har` | the journal as HAR 1.2 (``HARExport``) |
/// | `GET /__admin/requests/count?stubId=&method=&path=` | how many entries match |
/// | `DELETE /__admin/requests` | clear the journal |
/// | `GET /__admin/requests/unmatched` | entries no stub or route matched |
/// | `POST /__admin/reset` | journal, sequences, scenarios, failures and stubs back to the start |
/// | `GET /__admin/scenarios` | every scenario with its state and possible states |
/// | `PUT /__admin/scenarios/{name}/state` | set a state: `{"state": "…"}` |
/// | `POST /__admin/scenarios/reset` | every scenario back to `Started` |
/// | `POST /__admin/connection-faults` | queue accept-time faults: `{"faults": ["stallAfterAccept"]}` |
/// | `POST /__admin/recordings/start` | forward every request to `{"target": …}` and keep the exchanges |
/// | `POST /__admin/recordings/stop` | stop; the recorded exchanges as mappings (secrets replaced) |
/// | `GET /__admin/verify` | 200 when nothing failed and every required stub was hit, else 409 |
struct AdminAPI {
    static let prefix = "/__admin"

    let core: ServerCore

    func handle(_ request: RecordedRequest, remoteAddress: String) -> StubResponse {
        guard core.configuration.allowRemoteAdmin || Self.isLoopback(remoteAddress) else {
            return error(403, "the admin API answers loopback clients only (start with --allow-remote-admin)")
        }
        let path = String(request.path.dropFirst(Self.prefix.count))
        let parts = path.split(separator: "/").map(String.init)
        switch (request.method, parts.first ?? "", parts.count) {
        case ("GET", "health", 1):
            return .json(.object(["status": .string("ok")]))
        case ("GET", "mappings", 1):
            return .json(.object(["mappings": .array(core.registry.stubs().map(Self.summary))]))
        case ("POST", "mappings", 1):
            return addMappings(request.body)
        case ("DELETE", "mappings", 2):
            return core.registry.remove(id: parts[1])
                ? .json(.object(["removed": .string(parts[1])])) : error(404, "no stub \"\(parts[1])\"")
        case ("GET", "requests", 1):
            let since = request.queryValue("since").flatMap(Int.init) ?? 0
            return encode(
                ["requests": core.journal.entries.filter { $0.sequence > since }], meta: core.journal.dropped,
                responseBodies: request.queryValue("responseBodies") == "1")
        case ("POST", "recordings", 2) where parts[1] == "start":
            return startRecording(request.body)
        case ("POST", "recordings", 2) where parts[1] == "stop":
            guard let recorder = core.setRecorder(nil) else { return error(409, "not recording") }
            Task { await recorder.shutdown() }
            let exchanges = recorder.recorded
            let mappings = RecordingWriter(options: recorder.options).output(exchanges).files.flatMap {
                file -> [JSONValue] in
                guard case .object(let object) = file.document, case .array(let list)? = object["mappings"]
                else {
                    return []
                }
                return list
            }
            return .json(.object(["recorded": .int(Int64(exchanges.count)), "mappings": .array(mappings)]))
        case ("GET", "ui", 1):
            return StubResponse(
                headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
                body: Array(AdminPage.html.utf8))
        case ("GET", "requests", 2) where parts[1] == "unmatched":
            return encode(["requests": core.journal.unmatched], meta: core.journal.dropped)
        case ("GET", "requests", 2) where parts[1] == "har":
            let host = request.header("Host").map { "http://\($0)" } ?? ""
            let har = HARExport.document(core.journal.entries, startDate: core.startDate, serverURL: host)
            return StubResponse(
                status: 200, headers: [("Content-Type", "application/json")], body: har.jsonBytes)
        case ("GET", "requests", 2) where parts[1] == "count":
            return .json(.object(["count": .int(Int64(count(request)))]))
        case ("DELETE", "requests", 1):
            core.journal.clear()
            return .json(.object(["cleared": .bool(true)]))
        case ("POST", "reset", 1):
            core.journal.clear()
            core.registry.reset(restoreMappings: true)
            return .json(.object(["reset": .bool(true)]))
        case ("GET", "scenarios", 1):
            let scenarios = core.registry.scenarios().sorted { $0.key < $1.key }.map { name, state in
                JSONValue.object([
                    "name": .string(name), "state": .string(state),
                    "possibleStates": .array(core.registry.possibleStates(of: name).map(JSONValue.string)),
                ])
            }
            return .json(.object(["scenarios": .array(scenarios)]))
        case ("POST", "scenarios", 2) where parts[1] == "reset":
            core.registry.resetScenarios()
            return .json(.object(["reset": .bool(true)]))
        case ("PUT", "scenarios", 3) where parts[2] == "state":
            guard case .object(let body)? = try? JSONValue.parse(request.body),
                case .string(let state)? = body["state"]
            else { return error(400, "expected {\"state\": \"…\"}") }
            let name = FormDecoding.decode(Substring(parts[1]))
            return core.registry.setScenario(name, to: state)
                ? .json(.object(["name": .string(name), "state": .string(state)]))
                : error(404, "no scenario \"\(name)\"")
        case ("POST", "connection-faults", 1):
            guard case .object(let body)? = try? JSONValue.parse(request.body),
                case .array(let names)? = body["faults"]
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
        case ("GET", "verify", 1):
            let problems = core.registry.problems()
            return .json(
                .object(["ok": .bool(problems.isEmpty), "problems": .array(problems.map(JSONValue.string))]),
                status: problems.isEmpty ? 200 : 409)
        default:
            return error(404, "no admin route \(request.method) \(request.path)")
        }
    }

    private func addMappings(_ body: [UInt8]) -> StubResponse {
        do {
            let stubs = try ContractLoader.parse(body, file: "<admin>")
            for stub in stubs { core.registry.add(stub) }
            return .json(.object(["added": .array(stubs.map { .string($0.id) })]), status: 201)
        } catch {
            return self.error(400, error.description)
        }
    }

    private func count(_ request: RecordedRequest) -> Int {
        let stub = request.queryValue("stubId")
        let method = request.queryValue("method")?.uppercased()
        let path = request.queryValue("path")
        return core.journal.entries.filter { entry in
            (stub == nil || entry.stubID == stub) && (method == nil || entry.request.method == method)
                && (path == nil || entry.request.path == path)
        }.count
    }

    private func encode(_ value: [String: [JournalEntry]], meta dropped: Int, responseBodies: Bool = false)
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

    private func error(_ status: Int, _ message: String) -> StubResponse {
        .json(.object(["error": .string(message)]), status: status)
    }

    private static func summary(_ item: (stub: StubMapping, hits: Int)) -> JSONValue {
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
    private func startRecording(_ body: [UInt8]) -> StubResponse {
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
        } catch {
            return self.error(400, "cannot record \(target): \(error)")
        }
        return .json(.object(["recording": .string(target)]))
    }

    /// Whether the request is for the admin API.
    static func isAdmin(_ request: RecordedRequest) -> Bool {
        request.path == prefix || request.path.hasPrefix(prefix + "/")
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address.hasPrefix("::1:") || address.hasPrefix("::ffff:127.")
    }
}
