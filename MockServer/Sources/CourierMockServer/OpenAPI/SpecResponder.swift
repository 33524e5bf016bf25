import Foundation

/// Answers a valid request to a documented operation as the document says:
/// the status, headers and body of one of its responses.
///
/// Which response: the one `Prefer: code=N` names (as Prism reads it), else
/// the lowest 2xx, else `2XX`, else `default` (as 200). Which body: the
/// example `Prefer: example=name` names, else the media type's `example`,
/// else its first `examples` entry, else one made from the schema
/// (``SchemaSampler``, seeded by the server's seed). Which media type: the
/// first the `Accept` header takes, JSON preferred.
struct SpecResponder: Sendable {
    let spec: OpenAPISpec
    let seed: UInt64

    /// What to answer, or a finding (and 500) when `Prefer` asks for what
    /// the document does not have.
    func answer(_ operation: SpecOperation, _ request: RecordedRequest) -> Result<StubResponse, SpecFinding> {
        let prefer = Self.preferences(request.headerValues("Prefer"))
        let responses = operation.responses.value
        let chosen: (key: String, status: Int)
        if let wanted = prefer["code"] {
            guard let status = Int(wanted), let key = Self.key(for: status, in: responses) else {
                return .failure(
                    SpecFinding(
                        rule: "prefer/code", pointer: "/header/Prefer",
                        message:
                            "\(operation.displayName) documents no response \(wanted); it has \(responses.keys.sorted().joined(separator: ", "))"
                    ))
            }
            chosen = (key, status)
        } else if let success = Self.success(in: responses) {
            chosen = success
        } else {
            return .failure(
                SpecFinding(
                    rule: "operation/responses", pointer: "",
                    message: "\(operation.displayName) documents no responses"))
        }
        let location = operation.responses.location.appending(chosen.key)
        guard let responseValue = responses[chosen.key],
            let (resolved, responseLocation) = try? spec.files.dereferenced(responseValue, at: location),
            case .object(let response) = resolved
        else {
            return .success(StubResponse(status: chosen.status))
        }
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        if case .object(let content)? = response["content"], !content.isEmpty {
            let (mediaType, media) = Self.negotiate(request.header("Accept"), content)
            headers.append(("Content-Type", Self.headerText(.string(mediaType))))
            let mediaLocation = responseLocation.appending("content").appending(mediaType)
            switch example(media, mediaLocation, named: prefer["example"]) {
            case .success(let value): body = Self.serialize(value, as: mediaType)
            case .failure(let finding): return .failure(finding)
            }
        }
        if case .object(let declared)? = response["headers"] {
            for (name, header) in declared.sorted(by: { $0.key < $1.key })
            where name.lowercased() != "content-type" {
                guard
                    let (resolvedHeader, headerLocation) = try? spec.files.dereferenced(
                        header, at: responseLocation.appending("headers").appending(name)),
                    case .object(let headerObject) = resolvedHeader
                else { continue }
                let value: JSONValue
                if let example = headerObject["example"] {
                    value = example
                } else if let schema = headerObject["schema"] {
                    value = sampler.sample(schema, at: headerLocation.appending("schema"))
                } else {
                    continue
                }
                // A name that is no RFC 9110 token cannot be sent; a value loses
                // what would break the message's framing.
                guard ContractParser.isToken(name) else { continue }
                headers.append((name, Self.headerText(value)))
            }
        }
        return .success(StubResponse(status: chosen.status, headers: headers, body: body))
    }

    private var sampler: SchemaSampler {
        SchemaSampler(files: spec.files, dialect: spec.dialect, direction: .response, seed: seed)
    }

    /// The body value of a media type object.
    private func example(_ media: JSONValue, _ location: SpecLocation, named: String?) -> Result<
        JSONValue, SpecFinding
    > {
        guard case .object(let media) = media else { return .success(.null) }
        let examples: [String: JSONValue] =
            if case .object(let examples)? = media["examples"] { examples } else { [:] }
        if let named {
            guard let entry = examples[named] else {
                return .failure(
                    SpecFinding(
                        rule: "prefer/example", pointer: "/header/Prefer",
                        message:
                            "no example \(named) here; there are \(examples.isEmpty ? "none" : examples.keys.sorted().joined(separator: ", "))"
                    ))
            }
            return .success(exampleValue(entry, location.appending("examples").appending(named)))
        }
        if let example = media["example"] { return .success(example) }
        if let (name, entry) = examples.min(by: { $0.key < $1.key }) {
            return .success(exampleValue(entry, location.appending("examples").appending(name)))
        }
        guard let schema = media["schema"] else { return .success(.null) }
        return .success(sampler.sample(schema, at: location.appending("schema")))
    }

    /// An Example object's `value` (`externalValue` is not fetched).
    private func exampleValue(_ entry: JSONValue, _ location: SpecLocation) -> JSONValue {
        guard let (resolved, _) = try? spec.files.dereferenced(entry, at: location),
            case .object(let example) = resolved
        else { return .null }
        return example["value"] ?? .null
    }

    // MARK: Choosing

    /// `Prefer` preferences (RFC 7240): `code=404, example="missing"`.
    static func preferences(_ lines: [String]) -> [String: String] {
        var preferences: [String: String] = [:]
        for line in lines {
            for item in line.split(separator: ",") {
                let pair = item.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                let name = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
                let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
                preferences[name] = value
            }
        }
        return preferences
    }

    /// The response key for a status: exact, then `4XX`, then `default`.
    static func key(for status: Int, in responses: [String: JSONValue]) -> String? {
        guard (100...599).contains(status) else { return nil }
        if responses[String(status)] != nil { return String(status) }
        let range = "\(status / 100)XX"
        if let key = responses.keys.first(where: { $0.uppercased() == range }) { return key }
        return responses["default"] != nil ? "default" : nil
    }

    /// The success answer: the lowest 2xx, `2XX` as 200, `default` as 200,
    /// else the lowest documented status.
    static func success(in responses: [String: JSONValue]) -> (key: String, status: Int)? {
        let numbered = responses.keys.compactMap { key in Int(key).map { (key, $0) } }.sorted { $0.1 < $1.1 }
        if let ok = numbered.first(where: { (200..<300).contains($0.1) }) { return (ok.0, ok.1) }
        if let range = responses.keys.first(where: { $0.uppercased() == "2XX" }) { return (range, 200) }
        if responses["default"] != nil { return ("default", 200) }
        return numbered.first.map { ($0.0, $0.1) }
    }

    /// The media type to answer with: the first of the document's that the
    /// `Accept` header takes (JSON first among equals); the first JSON one
    /// when nothing fits.
    static func negotiate(_ accept: String?, _ content: [String: JSONValue]) -> (String, JSONValue) {
        let types = content.keys.sorted { lhs, rhs in
            let lhsJSON = lhs.contains("json")
            let rhsJSON = rhs.contains("json")
            return lhsJSON != rhsJSON ? lhsJSON : lhs < rhs
        }
        let ranges = (accept ?? "*/*").split(separator: ",").map {
            SpecRequestValidator.essence(String($0))
        }
        for type in types {
            let essence = SpecRequestValidator.essence(type)
            let major = essence.split(separator: "/").first.map(String.init) ?? ""
            if ranges.contains(where: { $0 == essence || $0 == "*/*" || $0 == major + "/*" }) {
                return (type, content[type] ?? .null)
            }
        }
        let first = types[0]
        return (first, content[first] ?? .null)
    }

    /// The body bytes: JSON for JSON media types, the text itself for a string.
    static func serialize(_ value: JSONValue, as mediaType: String) -> [UInt8] {
        let essence = SpecRequestValidator.essence(mediaType)
        if case .string(let text) = value, !SchemaKeywords.isJSON(essence) {
            return Array(text.utf8)
        }
        return value.jsonBytes
    }

    /// A header value from a JSON value: strings as they are, arrays joined with commas.
    static func headerText(_ value: JSONValue) -> String {
        let text =
            switch value {
            case .string(let text): text
            case .array(let items): items.map(headerText).joined(separator: ",")
            default: value.description
            }
        guard text.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" || $0 == "\0" ? " " : $0 })
    }
}
