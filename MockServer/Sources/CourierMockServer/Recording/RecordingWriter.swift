import Foundation

/// Turns recorded exchanges into contract files: one per distinct request
/// (method, path, query and the body pattern that identifies it), repeated
/// requests with different answers as a `responses` sequence, large bodies
/// in `__files/`, and no secret in any file.
struct RecordingWriter {
    let options: RecordingOptions

    /// The options' secret names, masking with `REDACTED`.
    private var secrets: SecretMask {
        var mask = SecretMask(
            headers: Set(options.secretHeaders), queryParameters: Set(options.secretQueryParameters),
            bodyFields: Set(options.secretFields))
        mask.mask = "REDACTED"
        return mask
    }

    /// A contract file to write, and the body files it names.
    struct Output {
        var files: [(name: String, document: JSONValue)] = []
        var bodies: [(name: String, bytes: [UInt8])] = []
    }

    /// Writes the contract files and body files into `directory`.
    /// - Returns: The contract files' names.
    func write(_ exchanges: [RecordedExchange], to directory: URL) throws -> [String] {
        let output = output(exchanges)
        let files = FileManager.default
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, document) in output.files {
            try Data(document.jsonBytes).write(to: directory.appendingPathComponent(name))
        }
        if !output.bodies.isEmpty {
            let bodies = directory.appendingPathComponent("__files")
            try files.createDirectory(at: bodies, withIntermediateDirectories: true)
            for (name, bytes) in output.bodies {
                try Data(bytes).write(to: bodies.appendingPathComponent(name))
            }
        }
        return output.files.map(\.name)
    }

    func output(_ exchanges: [RecordedExchange]) -> Output {
        var groups: [(key: String, request: JSONValue, responses: [RecordedExchange])] = []
        for exchange in exchanges {
            let request = requestPattern(exchange.request)
            let key = request.description
            if let index = groups.firstIndex(where: { $0.key == key }) {
                groups[index].responses.append(exchange)
            } else {
                groups.append((key, request, [exchange]))
            }
        }
        var output = Output()
        var used: Set<String> = []
        for group in groups {
            let name = uniqueName(for: group.responses[0].request, used: &used)
            var answers: [JSONValue] = []
            for (index, exchange) in group.responses.enumerated() {
                answers.append(
                    response(
                        exchange.response,
                        bodyName: group.responses.count == 1 ? name : "\(name)-\(index + 1)",
                        into: &output))
            }
            // Identical answers to a repeated request: one answer is the same contract.
            let distinct = answers.reduce(into: [JSONValue]()) { list, answer in
                if list.last != answer { list.append(answer) }
            }
            var mapping: [String: JSONValue] = ["id": .string(name), "request": group.request]
            if distinct.count == 1 {
                mapping["response"] = distinct[0]
            } else {
                mapping["responses"] = .array(answers)
                mapping["exhausted"] = .string("repeatLast")
            }
            output.files.append(("\(name).json", .object(["mappings": .array([.object(mapping)])])))
        }
        return output
    }

    // MARK: - Requests

    private func requestPattern(_ request: RecordedRequest) -> JSONValue {
        var pattern: [String: JSONValue] = [
            "method": .string(request.method), "urlPath": .string(request.path),
        ]
        let query = request.query
        if !query.isEmpty {
            var parameters: [String: JSONValue] = [:]
            let secrets = self.secrets
            for (name, value) in query where parameters[name] == nil {
                parameters[name] =
                    secrets.hidesQuery(name)
                    ? .object(["present": .bool(true)]) : .object(["equalTo": .string(value)])
            }
            pattern["queryParameters"] = .object(parameters)
        }
        var headers: [String: JSONValue] = [:]
        let mask = self.secrets
        for header in request.headers where mask.hidesHeader(header.name) {
            headers[header.name] = .object(["present": .bool(true)])
        }
        if !headers.isEmpty { pattern["headers"] = .object(headers) }
        if let body = bodyPattern(request) { pattern["bodyPatterns"] = .array([body]) }
        return .object(pattern)
    }

    private func bodyPattern(_ request: RecordedRequest) -> JSONValue? {
        guard !request.body.isEmpty else { return nil }
        if let json = try? JSONValue.parse(request.body) {
            let (kept, removed) = redacted(json, replacing: false)
            return .object([removed ? "containsJson" : "equalToJson": kept])
        }
        let type = request.header("Content-Type")?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded"), let text = request.bodyText {
            let secrets = self.secrets
            var fields: [String: JSONValue] = [:]
            for (name, value) in FormDecoding.pairs(text) where fields[name] == nil {
                fields[name] =
                    secrets.bodyFields.contains(SecretMask.normalized(name)) || secrets.hidesQuery(name)
                    ? .object(["present": .bool(true)]) : .object(["equalTo": .string(value)])
            }
            return .object(["formParameters": .object(fields)])
        }
        if let text = request.bodyText { return .object(["equalTo": .string(text)]) }
        return nil  // a binary body does not identify the request here
    }

    /// `value` without its secret fields (`replacing: false`, for matchers)
    /// or with them replaced by `"REDACTED"`; and whether any was found.
    private func redacted(_ value: JSONValue, replacing: Bool) -> (JSONValue, Bool) {
        let secrets = Set(options.secretFields.map(SecretMask.normalized))
        switch value {
        case .object(let object):
            var out: [String: JSONValue] = [:]
            var found = false
            for (key, item) in object {
                if secrets.contains(SecretMask.normalized(key)) {
                    found = true
                    if replacing { out[key] = .string("REDACTED") }
                    continue
                }
                let (inner, innerFound) = redacted(item, replacing: replacing)
                out[key] = inner
                found = found || innerFound
            }
            return (.object(out), found)
        case .array(let items):
            var found = false
            let out = items.map { item -> JSONValue in
                let (inner, innerFound) = redacted(item, replacing: replacing)
                found = found || innerFound
                return inner
            }
            return (.array(out), found)
        default:
            return (value, false)
        }
    }

    // MARK: - Responses

    private func response(_ response: StubResponse, bodyName: String, into output: inout Output) -> JSONValue
    {
        var object: [String: JSONValue] = ["status": .int(Int64(response.status))]
        var headers: [String: JSONValue] = [:]
        let secrets = self.secrets
        for header in response.headers {
            var value = header.value
            switch header.name.lowercased() {
            case "set-cookie": value = Self.redactedCookie(value)
            case "location", "content-location": value = secrets.url(value)
            case let name where secrets.hidesHeader(name): value = secrets.mask
            default: break
            }
            switch headers[header.name] {
            case .string(let first)?: headers[header.name] = .array([.string(first), .string(value)])
            case .array(let list)?: headers[header.name] = .array(list + [.string(value)])
            default: headers[header.name] = .string(value)
            }
        }
        if !headers.isEmpty { object["headers"] = .object(headers) }
        var body = response.body
        if let json = try? JSONValue.parse(body), case (let clean, true) = redacted(json, replacing: true) {
            body = clean.jsonBytes
        }
        guard !body.isEmpty else { return .object(object) }
        if body.count > options.bodyFileThreshold {
            let file = "\(bodyName).body"
            output.bodies.append((file, body))
            object["bodyFileName"] = .string(file)
        } else if let text = String(validating: body, as: UTF8.self) {
            object["body"] = .string(text)
        } else {
            object["base64Body"] = .string(Data(body).base64EncodedString())
        }
        return .object(object)
    }

    /// `name=REDACTED` and the cookie's attributes.
    static func redactedCookie(_ value: String) -> String {
        let parts = value.split(separator: ";", maxSplits: 1)
        let name = parts.first?.split(separator: "=", maxSplits: 1).first ?? ""
        return "\(name.trimmingCharacters(in: .whitespaces))=REDACTED"
            + (parts.count > 1 ? ";" + parts[1] : "")
    }

    // MARK: - Names

    private func uniqueName(for request: RecordedRequest, used: inout Set<String>) -> String {
        let slug = request.path.split(separator: "/").joined(separator: "-").lowercased()
            .map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
        var base = request.method.lowercased() + (slug.isEmpty ? "-root" : "-" + String(slug))
        if base.count > 80 { base = String(base.prefix(80)) }
        var name = base
        var number = 2
        while used.contains(name) {
            name = "\(base)-\(number)"
            number += 1
        }
        used.insert(name)
        return name
    }
}
