/// RFC 9457 problem details for a request the document refuses: what went
/// wrong, the operation, and each finding with its JSON pointer.
enum ProblemDetails {
    /// The `type` of every refusal: a URN, so that it names the problem
    /// without pointing at a page that might not exist.
    static let type = "urn:courier-mock:problem:openapi-request"

    /// The refusal of `check`, as an answer with status `status`.
    static func refusal(_ check: SpecRequestCheck, status: Int, spec: OpenAPISpec) -> StubResponse {
        let findings = check.findings
        let title =
            switch status {
            case 401: "The request lacks the credentials the OpenAPI document asks for"
            case 405: "The OpenAPI document has no such method for this path"
            case 415: "The OpenAPI document does not take this content type here"
            default: "The request does not match the OpenAPI document"
            }
        var detail = findings.first?.message ?? title
        if findings.count > 1 { detail += " (and \(findings.count - 1) more)" }
        var body: [String: JSONValue] = [
            "type": .string(type), "title": .string(title), "status": .int(Int64(status)),
            "detail": .string(detail),
            "errors": .array(
                findings.map { finding in
                    var object: [String: JSONValue] = [
                        "rule": .string(finding.rule), "pointer": .string(finding.pointer),
                        "message": .string(finding.message),
                    ]
                    if let source = finding.source { object["source"] = .string(source) }
                    return .object(object)
                }),
        ]
        if let operation = check.operation { body["operation"] = .string(operation.displayName) }
        var headers: [(name: String, value: String)] = [("Content-Type", "application/problem+json")]
        if status == 405 { headers.append(("Allow", check.allowedMethods.joined(separator: ", "))) }
        if status == 401, let operation = check.operation {
            headers.append(("WWW-Authenticate", challenges(operation, spec: spec)))
        }
        return StubResponse(status: status, headers: headers, body: JSONValue.object(body).jsonBytes)
    }

    /// The `WWW-Authenticate` challenges (RFC 9110 §11.6.1) of the schemes
    /// the operation accepts.
    private static func challenges(_ operation: SpecOperation, spec: OpenAPISpec) -> String {
        var schemes: [String] = []
        for name in Set(operation.security.flatMap(\.keys)).sorted() {
            guard case .object(let scheme)? = spec.securitySchemes[name] else { continue }
            let challenge: String
            switch (scheme["type"], scheme["scheme"]) {
            case (.string("http")?, .string(let kind)?) where kind.lowercased() == "basic":
                challenge = "Basic"
            case (.string("apiKey")?, _): challenge = "ApiKey"
            default: challenge = "Bearer"
            }
            if !schemes.contains(challenge) { schemes.append(challenge) }
        }
        return (schemes.isEmpty ? ["Bearer"] : schemes).map { "\($0) realm=\"courier-mock\"" }.joined(
            separator: ", ")
    }
}
