import Foundation

/// Checks a real API's answer against the operation it answers, for the
/// validating proxy (`record --openapi`): is the status documented, the
/// content type one the response lists, the body valid under its schema
/// (`writeOnly` properties not required), each required header there.
/// Pointers start at `/response`.
struct SpecResponseValidator: Sendable {
    let spec: OpenAPISpec

    func check(_ response: StubResponse, of operation: SpecOperation) -> [SpecFinding] {
        let responses = operation.responses.value
        guard let key = SpecResponder.key(for: response.status, in: responses) else {
            return [
                SpecFinding(
                    rule: "response/status", pointer: "/response/status",
                    message: "\(operation.displayName) documents no \(response.status) answer; it documents "
                        + responses.keys.sorted().joined(separator: ", "),
                    source: source(operation.responses.location))
            ]
        }
        let location = operation.responses.location.appending(key)
        guard let answer = responses[key],
            let (resolved, responseLocation) = try? spec.files.dereferenced(answer, at: location),
            case .object(let documented) = resolved
        else { return [] }
        var findings: [SpecFinding] = []
        func header(_ name: String) -> String? {
            response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
        if case .object(let headers)? = documented["headers"] {
            for (name, declared) in headers.sorted(by: { $0.key < $1.key })
            where name.lowercased() != "content-type" {
                let headerLocation = responseLocation.appending("headers").appending(name)
                guard
                    let (resolvedHeader, resolvedLocation) = try? spec.files.dereferenced(
                        declared, at: headerLocation),
                    case .object(let object) = resolvedHeader
                else { continue }
                let pointer = "/response/header/\(JSONPointer.escape(name))"
                guard let text = header(name) else {
                    if object["required"] == .bool(true) {
                        findings.append(
                            SpecFinding(
                                rule: "response/header", pointer: pointer,
                                message: "the documented header \(name) is missing",
                                source: source(resolvedLocation)))
                    }
                    continue
                }
                if let schema = object["schema"] {
                    let parameter = ParameterDecoding.Shape(
                        (schema, resolvedLocation.appending("schema")), files: spec.files)
                    findings += validator.validate(
                        parameter.scalar(text), against: schema, at: resolvedLocation.appending("schema"),
                        pointer: pointer)
                }
            }
        }
        guard case .object(let content)? = documented["content"], !content.isEmpty else {
            if !response.body.isEmpty {
                findings.append(
                    SpecFinding(
                        rule: "response/body", pointer: "/response/body",
                        message:
                            "the \(key) answer is documented without a body, and this one has \(response.body.count) bytes",
                        source: source(responseLocation)))
            }
            return findings
        }
        let contentType = header("Content-Type") ?? ""
        guard let (mediaType, media) = SpecRequestValidator.media(for: contentType, in: content) else {
            findings.append(
                SpecFinding(
                    rule: "response/content-type", pointer: "/response/header/Content-Type",
                    message:
                        "\(contentType.isEmpty ? "no Content-Type" : contentType) is not documented for the \(key) answer; "
                        + "it lists \(content.keys.sorted().joined(separator: ", "))",
                    source: source(responseLocation.appending("content"))))
            return findings
        }
        let essence = SpecRequestValidator.essence(contentType)
        guard SchemaKeywords.isJSON(essence),
            case .object(let mediaObject) = media,
            let schema = mediaObject["schema"]
        else { return findings }
        let value: JSONValue
        do {
            value = try JSONValue.parse(response.body)
        } catch {
            findings.append(
                SpecFinding(
                    rule: "response/json", pointer: "/response/body",
                    message: "the body is not JSON: \(error)"))
            return findings
        }
        let schemaLocation = responseLocation.appending("content").appending(mediaType).appending("schema")
        findings += validator.validate(value, against: schema, at: schemaLocation, pointer: "/response/body")
        return findings
    }

    private var validator: SchemaValidator {
        SchemaValidator(files: spec.files, dialect: spec.dialect, direction: .response)
    }

    private func source(_ location: SpecLocation) -> String {
        "\(location.file.lastPathComponent)#\(location.pointer)"
    }
}
