import Foundation

/// Turns contract JSON into stubs, with errors naming the file and JSON path.
struct ContractParser {
    let file: String
    /// Where `bodyFileName` files live (`<contracts>/__files`).
    let filesDirectory: URL?

    /// A file holds one mapping (an object with `request`) or `{"mappings": [...]}`.
    func parseFile(_ value: JSONValue) throws(ContractError) -> [StubMapping] {
        if case .object(let object) = value, object["mappings"] != nil {
            let reader = try ContractReader(file: file, path: "$", value: value, allowed: ["mappings"])
            let items = try reader.array("mappings") ?? []
            var stubs: [StubMapping] = []
            for (index, item) in items.enumerated() {
                stubs.append(
                    try parseMapping(item, path: "$.mappings[\(index)]", fallbackID: "\(file)#\(index)"))
            }
            return stubs
        }
        return [try parseMapping(value, path: "$", fallbackID: file)]
    }

    func parseMapping(_ value: JSONValue, path: String, fallbackID: String) throws(ContractError)
        -> StubMapping
    {
        let reader = try ContractReader(
            file: file, path: path, value: value,
            allowed: [
                "id", "priority", "required", "request", "response", "responses", "exhausted", "scenarioName",
                "requiredScenarioState", "newScenarioState",
            ])
        guard let requestValue = reader.value("request") else { throw reader.error("request", "is required") }
        let request = try parseRequest(requestValue, path: "\(path).request")
        var responses: [StubResponse] = []
        switch (reader.value("response"), try reader.array("responses")) {
        case (.some, .some):
            throw reader.error(nil, "give either response or responses, not both")
        case (.some(let single), nil):
            responses = [try parseResponse(single, path: "\(path).response")]
        case (nil, .some(let list)):
            guard !list.isEmpty else { throw reader.error("responses", "must not be empty") }
            for (index, item) in list.enumerated() {
                responses.append(try parseResponse(item, path: "\(path).responses[\(index)]"))
            }
        case (nil, nil):
            throw reader.error("response", "is required (or responses)")
        }
        if !request.body.isEmpty,
            let index = responses.firstIndex(where: { $0.fault?.actsOnRequestBody == true })
        {
            throw reader.error(
                "responses[\(index)].fault",
                "request-body faults are chosen before the body is read, so the stub cannot have bodyPatterns"
            )
        }
        var exhausted = StubMapping.Exhausted.repeatLast
        if let text = try reader.string("exhausted") {
            guard let value = StubMapping.Exhausted(rawValue: text) else {
                throw reader.error("exhausted", "expected repeatLast or fail, found \"\(text)\"")
            }
            exhausted = value
        }
        var scenario: StubMapping.Scenario?
        if let name = try reader.string("scenarioName") {
            scenario = .init(
                name: name, requiredState: try reader.string("requiredScenarioState"),
                newState: try reader.string("newScenarioState"))
        } else if reader.has("requiredScenarioState") || reader.has("newScenarioState") {
            throw reader.error("scenarioName", "is required with requiredScenarioState or newScenarioState")
        }
        return StubMapping(
            id: try reader.string("id") ?? fallbackID,
            priority: try reader.int("priority", in: -1000...1000) ?? 5,
            request: request, responses: responses, exhausted: exhausted, scenario: scenario,
            required: try reader.bool("required") ?? false)
    }

    func parseRequest(_ value: JSONValue, path: String) throws(ContractError) -> RequestPattern {
        let reader = try ContractReader(
            file: file, path: path, value: value,
            allowed: [
                "method", "url", "urlPath", "urlPathTemplate", "urlPathPattern", "queryParameters", "headers",
                "bodyPatterns",
            ])
        var pattern = RequestPattern()
        if let method = try reader.string("method"), method.uppercased() != "ANY" {
            pattern.method = method.uppercased()
        }
        let urlKeys = ["url", "urlPath", "urlPathTemplate", "urlPathPattern"].filter(reader.has)
        if urlKeys.count > 1 {
            throw reader.error(urlKeys[1], "give only one of \(urlKeys.joined(separator: ", "))")
        }
        if let url = try reader.string("url") { pattern.url = .exact(url) }
        if let path = try reader.string("urlPath") { pattern.url = .path(path) }
        if let template = try reader.string("urlPathTemplate") { pattern.url = .template(template) }
        if let regex = try reader.string("urlPathPattern") {
            do {
                _ = try Regex(regex)
            } catch {
                throw reader.error("urlPathPattern", "invalid regular expression: \(error)")
            }
            pattern.url = .pattern(regex)
        }
        let file = self.file
        pattern.query = Dictionary(
            uniqueKeysWithValues: try reader.map("queryParameters") { _, value, path throws(ContractError) in
                try StringMatcher.parse(value, file: file, path: path)
            })
        let headers = try reader.map("headers") { name, value, path throws(ContractError) in
            try StringMatcher.parse(value, file: file, path: path)
        }
        for (name, matcher) in headers {
            // Header names are case-insensitive (RFC 9110 §5.1): "X-A" and "x-a" are one header.
            guard pattern.headers.updateValue(matcher, forKey: name.lowercased()) == nil else {
                throw reader.error("headers.\(name)", "header named twice (names are case-insensitive)")
            }
        }
        for (index, item) in (try reader.array("bodyPatterns") ?? []).enumerated() {
            pattern.body.append(try parseBodyPattern(item, path: "\(path).bodyPatterns[\(index)]"))
        }
        return pattern
    }

    func parseBodyPattern(_ value: JSONValue, path: String) throws(ContractError) -> BodyPattern {
        let reader = try ContractReader(
            file: file, path: path, value: value,
            allowed: ["equalToJson", "containsJson", "formParameters", "contains", "equalTo"])
        guard reader.object.count == 1, let key = reader.object.keys.first, let inner = reader.object[key]
        else {
            throw reader.error(
                nil, "expected exactly one of equalToJson, containsJson, formParameters, contains, equalTo")
        }
        switch key {
        case "equalToJson": return .equalToJson(inner)
        case "containsJson": return .containsJson(inner)
        case "contains": return .contains(try reader.requiredString(key))
        case "equalTo": return .equalTo(try reader.requiredString(key))
        default:
            let file = self.file
            return .form(
                Dictionary(
                    uniqueKeysWithValues: try reader.map(key) { _, value, path throws(ContractError) in
                        try StringMatcher.parse(value, file: file, path: path)
                    }))
        }
    }

    func parseResponse(_ value: JSONValue, path: String) throws(ContractError) -> StubResponse {
        let reader = try ContractReader(
            file: file, path: path, value: value,
            allowed: [
                "status", "headers", "body", "base64Body", "jsonBody", "bodyFileName", "envelope",
                "fixedDelayMilliseconds", "delayDistribution", "fault", "eventStream", "ndjson", "webSocket",
            ])
        var response = StubResponse(status: try reader.int("status", in: 100...599) ?? 200)
        let bodyKeys = [
            "body", "base64Body", "jsonBody", "bodyFileName", "envelope", "eventStream", "ndjson",
            "webSocket",
        ]
        .filter(reader.has)
        if bodyKeys.count > 1 {
            throw reader.error(bodyKeys[1], "give only one of \(bodyKeys.joined(separator: ", "))")
        }
        var defaultHeaders: [(name: String, value: String)] = []
        if let text = try reader.string("body") { response.body = Array(text.utf8) }
        if let encoded = try reader.string("base64Body") {
            guard let data = Data(base64Encoded: encoded) else {
                throw reader.error("base64Body", "is not valid base64")
            }
            response.body = Array(data)
        }
        if let json = reader.value("jsonBody") {
            response.body = json.jsonBytes
            defaultHeaders = [("Content-Type", "application/json")]
        }
        if let name = try reader.string("bodyFileName") {
            response.body = try loadBodyFile(name, reader: reader)
        }
        if let envelope = reader.value("envelope") {
            let built = try parseEnvelope(envelope, path: "\(path).envelope")
            if !reader.has("status") { response.status = built.status }
            response.body = built.body
            defaultHeaders = built.headers
        }
        let explicit = try reader.map("headers") { name, value, path throws(ContractError) -> [String] in
            switch value {
            case .string(let text): return [text]
            case .array(let items):
                var texts: [String] = []
                for (index, item) in items.enumerated() {
                    guard case .string(let text) = item else {
                        throw ContractError(
                            file: file, path: "\(path)[\(index)]", message: "expected a string")
                    }
                    texts.append(text)
                }
                return texts
            default:
                throw ContractError(
                    file: file, path: path, message: "expected a string or an array of strings")
            }
        }
        let explicitNames = Set(explicit.map { $0.0.lowercased() })
        response.headers = defaultHeaders.filter { !explicitNames.contains($0.name.lowercased()) }
        for (name, values) in explicit {
            guard Self.isToken(name) else {
                throw reader.error("headers.\(name)", "is not a valid header name (RFC 9110 token)")
            }
            for value in values {
                // A line break would end the field and start another: the
                // server would write a different response than the file says.
                guard value.utf8.allSatisfy({ ($0 >= 32 && $0 != 127) || $0 == 9 }) else {
                    throw reader.error(
                        "headers.\(name)", "has a control character (CR, LF, NUL…) in its value")
                }
                response.headers.append((name, value))
            }
        }
        if let fixed = try reader.int("fixedDelayMilliseconds", in: 0...600_000) {
            response.delay = .fixed(milliseconds: fixed)
        }
        if let distribution = try reader.child(
            "delayDistribution", allowed: ["type", "lower", "upper", "seed"])
        {
            guard try distribution.string("type") ?? "uniform" == "uniform" else {
                throw distribution.error("type", "only \"uniform\" is supported")
            }
            let lower = try distribution.int("lower", in: 0...600_000) ?? 0
            let upper = try distribution.int("upper", in: 0...600_000) ?? lower
            guard lower <= upper else { throw distribution.error("upper", "must not be below lower") }
            response.delay = .uniform(
                lowerMs: lower, upperMs: upper,
                seed: UInt64(try distribution.int("seed", in: 0...Int64.max) ?? 1))
        }
        if let fault = reader.value("fault") {
            response.fault = try MockFault.parse(fault, file: file, path: "\(path).fault")
        }
        if let stream = reader.value("eventStream") {
            if let fault = response.fault, !fault.appliesToStreams {
                throw reader.error("fault", "does not apply to an event stream: \(MockFault.streamFaults)")
            }
            response.eventStream = try parseEventStream(stream, path: "\(path).eventStream")
        }
        if let stream = reader.value("ndjson") {
            if let fault = response.fault, !fault.appliesToStreams {
                throw reader.error("fault", "does not apply to an NDJSON stream: \(MockFault.streamFaults)")
            }
            response.ndjson = try parseNDJSON(stream, path: "\(path).ndjson")
        }
        if let script = reader.value("webSocket") {
            if response.fault != nil {
                throw reader.error("fault", "a WebSocket conversation takes its faults as steps")
            }
            response.webSocket = try parseWebSocket(script, path: "\(path).webSocket")
        }
        return response
    }

    private func parseEnvelope(_ value: JSONValue, path: String) throws(ContractError) -> StubResponse {
        let reader = try ContractReader(
            file: file, path: path, value: value, allowed: ["code", "msg", "data", "keys", "preset"])
        let code = reader.value("code") ?? .int(0)
        switch code {
        case .int, .string: break
        default: throw reader.error("code", "expected an integer or a string, found \(code.typeName)")
        }
        var keys = EnvelopeKeys()
        if let names = try reader.child("keys", allowed: ["code", "msg", "data"]) {
            keys.code = try names.string("code") ?? keys.code
            keys.message = try names.string("msg") ?? keys.message
            keys.data = try names.string("data") ?? keys.data
        }
        let message = try reader.string("msg") ?? ""
        let data = reader.value("data") ?? .null
        if let name = try reader.string("preset") {
            guard let preset = EnvelopePreset(rawValue: name) else {
                let known = EnvelopePreset.allCases.map(\.rawValue).joined(separator: ", ")
                throw reader.error("preset", "unknown preset \"\(name)\" (known: \(known))")
            }
            return preset.response(code: code, message: message, data: data, keys: keys)
        }
        return .json(.object([keys.code: code, keys.message: .string(message), keys.data: data]))
    }

    /// RFC 9110 `token`: letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                    || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
    }

    private func loadBodyFile(_ name: String, reader: ContractReader) throws(ContractError) -> [UInt8] {
        guard let filesDirectory else {
            throw reader.error("bodyFileName", "body files need a contracts directory (its __files folder)")
        }
        let url = filesDirectory.appendingPathComponent(name).standardizedFileURL
        guard url.path.hasPrefix(filesDirectory.standardizedFileURL.path + "/") else {
            throw reader.error("bodyFileName", "\"\(name)\" points outside the __files folder")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw reader.error("bodyFileName", "no readable file __files/\(name)")
        }
        return Array(data)
    }
}
