import Foundation

/// The key-by-key translation behind ``WireMockImport``.
struct WireMockConverter {
    let file: String

    private func refuse(_ path: String, _ why: String) -> ContractError {
        ContractError(file: file, path: path, message: why)
    }

    private func object(_ value: JSONValue, _ path: String) throws(ContractError) -> [String: JSONValue] {
        guard case .object(let object) = value else { throw refuse(path, "expected an object") }
        return object
    }

    func mapping(_ value: JSONValue, path: String) throws(ContractError) -> JSONValue {
        let source = try object(value, path)
        var out: [String: JSONValue] = [:]
        for (key, item) in source {
            switch key {
            case "priority", "scenarioName", "requiredScenarioState", "newScenarioState": out[key] = item
            case "id", "uuid", "name", "persistent", "metadata", "insertionIndex": break
            case "request": out["request"] = try request(item, path: "\(path).request")
            case "response": out["response"] = try response(item, path: "\(path).response")
            default: throw refuse("\(path).\(key)", "WireMock's \(key) is not supported by courier-mock")
            }
        }
        if let id = source["id"] ?? source["uuid"] ?? source["name"] { out["id"] = id }
        return .object(out)
    }

    private func request(_ value: JSONValue, path: String) throws(ContractError) -> JSONValue {
        var out: [String: JSONValue] = [:]
        var headers: [String: JSONValue] = [:]
        for (key, item) in try object(value, path) {
            switch key {
            case "method", "url", "urlPath", "urlPathPattern", "urlPathTemplate": out[key] = item
            case "queryParameters":
                var matchers: [String: JSONValue] = [:]
                for (name, matcher) in try object(item, "\(path).\(key)") {
                    matchers[name] = try self.matcher(matcher, path: "\(path).\(key).\(name)")
                }
                out[key] = .object(matchers)
            case "headers":
                for (name, matcher) in try object(item, "\(path).\(key)") {
                    headers[name] = try self.matcher(matcher, path: "\(path).\(key).\(name)")
                }
            case "basicAuthCredentials":
                let credentials = try object(item, "\(path).\(key)")
                guard case .string(let user)? = credentials["username"],
                    case .string(let password)? = credentials["password"]
                else { throw refuse("\(path).\(key)", "needs a username and a password") }
                let token = Data("\(user):\(password)".utf8).base64EncodedString()
                headers["Authorization"] = .object(["equalTo": .string("Basic \(token)")])
            case "cookies":
                let cookies = try object(item, "\(path).\(key)")
                guard cookies.count == 1, let (name, matcher) = cookies.first,
                    case .string(let wanted)? = try object(matcher, "\(path).\(key).\(name)")["equalTo"]
                else {
                    throw refuse("\(path).\(key)", "only one cookie matched with equalTo can be imported")
                }
                headers["Cookie"] = .object(["contains": .string("\(name)=\(wanted)")])
            case "bodyPatterns":
                guard case .array(let patterns) = item else {
                    throw refuse("\(path).\(key)", "expected an array")
                }
                var converted: [JSONValue] = []
                for (index, pattern) in patterns.enumerated() {
                    converted.append(try bodyPattern(pattern, path: "\(path).\(key)[\(index)]"))
                }
                out[key] = .array(converted)
            default:
                throw refuse("\(path).\(key)", "WireMock's request \(key) is not supported by courier-mock")
            }
        }
        if !headers.isEmpty { out["headers"] = .object(headers) }
        return .object(out)
    }

    private func matcher(_ value: JSONValue, path: String) throws(ContractError) -> JSONValue {
        var source = try object(value, path)
        let caseInsensitive = source.removeValue(forKey: "caseInsensitive") == .bool(true)
        guard source.count == 1, let (kind, operand) = source.first else {
            throw refuse(path, "expected one matcher (equalTo, contains, matches, absent)")
        }
        switch kind {
        case "equalTo" where caseInsensitive:
            guard case .string(let text) = operand else {
                throw refuse("\(path).equalTo", "expected a string")
            }
            return .object(["matches": .string("(?i)^" + NSRegularExpression.escapedPattern(for: text) + "$")]
            )
        case "equalTo", "contains", "matches":
            guard !caseInsensitive else { throw refuse("\(path).caseInsensitive", "applies to equalTo only") }
            return .object([kind: operand])
        case "absent":
            return operand == .bool(false)
                ? .object(["present": .bool(true)]) : .object(["absent": .bool(true)])
        default:
            throw refuse("\(path).\(kind)", "WireMock's \(kind) matcher is not supported by courier-mock")
        }
    }

    private func bodyPattern(_ value: JSONValue, path: String) throws(ContractError) -> JSONValue {
        var source = try object(value, path)
        let ignoreExtra = source.removeValue(forKey: "ignoreExtraElements") == .bool(true)
        if source.removeValue(forKey: "ignoreArrayOrder") == .bool(true) {
            throw refuse("\(path).ignoreArrayOrder", "is not supported by courier-mock")
        }
        guard source.count == 1, let (kind, operand) = source.first else {
            throw refuse(path, "expected one body pattern")
        }
        switch kind {
        case "equalToJson":
            // WireMock also takes the JSON as a string.
            var json = operand
            if case .string(let text) = operand {
                do {
                    json = try JSONValue.parse(Array(text.utf8))
                } catch {
                    throw refuse("\(path).equalToJson", "is not valid JSON")
                }
            }
            return .object([ignoreExtra ? "containsJson" : "equalToJson": json])
        case "contains", "equalTo":
            return .object([kind: operand])
        default:
            throw refuse(
                "\(path).\(kind)", "WireMock's \(kind) body pattern is not supported by courier-mock")
        }
    }

    private static let faults = [
        "CONNECTION_RESET_BY_PEER": "resetBeforeHeaders", "EMPTY_RESPONSE": "closeBeforeHeaders",
        "MALFORMED_RESPONSE_CHUNK": "malformedChunk", "RANDOM_DATA_THEN_CLOSE": "garbageThenClose",
    ]

    private func response(_ value: JSONValue, path: String) throws(ContractError) -> JSONValue {
        let source = try object(value, path)
        if source["fault"] != nil, source["chunkedDribbleDelay"] != nil {
            throw refuse("\(path).chunkedDribbleDelay", "cannot be combined with a fault")
        }
        var out: [String: JSONValue] = [:]
        for (key, item) in source {
            switch key {
            case "status", "headers", "body", "base64Body", "jsonBody", "bodyFileName",
                "fixedDelayMilliseconds":
                out[key] = item
            case "delayDistribution":
                let distribution = try object(item, "\(path).\(key)")
                guard distribution["type"] == .string("uniform") else {
                    throw refuse("\(path).\(key).type", "only uniform delays are supported by courier-mock")
                }
                out[key] = item
            case "fault":
                guard case .string(let name) = item, let fault = Self.faults[name] else {
                    throw refuse(
                        "\(path).\(key)", "unknown WireMock fault (known: \(Self.faults.keys.sorted()))")
                }
                out[key] = .string(fault)
            case "chunkedDribbleDelay":
                let dribble = try object(item, "\(path).\(key)")
                guard let chunks = dribble["numberOfChunks"], let duration = dribble["totalDuration"] else {
                    throw refuse("\(path).\(key)", "needs numberOfChunks and totalDuration")
                }
                out["fault"] = .object(["name": .string("dribble"), "chunks": chunks, "overMs": duration])
            default:
                throw refuse("\(path).\(key)", "WireMock's response \(key) is not supported by courier-mock")
            }
        }
        return .object(out)
    }
}
