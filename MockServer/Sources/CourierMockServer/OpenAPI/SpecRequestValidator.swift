import Foundation

/// What the document says about one request: the operation it calls, and
/// every rule it breaks — its parameters, its credentials, its body.
struct SpecRequestCheck: Sendable {
    /// The operation, `nil` when the document does not have the request's
    /// path (then other answers — stubs, built-in routes — take it).
    var operation: SpecOperation?
    /// Every rule broken, in the order checked.
    var findings: [SpecFinding] = []
    /// The status a refusal answers with: 405 (method), 401 (credentials),
    /// 415 (content type) or 400 (anything else); `nil` when valid.
    var refusalStatus: Int?
    /// For a 405: the methods the path has.
    var allowedMethods: [String] = []
}

/// Checks requests against an ``OpenAPISpec``: the route, security
/// requirements, path, query, header and cookie parameters (styles and
/// `explode` as the document says), and the body by content type (JSON,
/// form, multipart) against its schema.
struct SpecRequestValidator: Sendable {
    let spec: OpenAPISpec

    func check(_ request: RecordedRequest) -> SpecRequestCheck {
        var result = SpecRequestCheck()
        switch spec.route(method: request.method, path: request.path) {
        case .unknown:
            return result
        case .methodNotAllowed(let allowed):
            result.findings.append(
                SpecFinding(
                    rule: "operation/method", pointer: "/method",
                    message:
                        "the document has no \(request.method) for \(request.path); it has \(allowed.joined(separator: ", "))"
                ))
            result.refusalStatus = 405
            result.allowedMethods = allowed
            return result
        case .operation(let operation, let pathValues):
            result.operation = operation
            let security = checkSecurity(operation, request)
            let parameters = checkParameters(operation, request, pathValues: pathValues)
            let (checked, unsupported) = checkBody(operation, request)
            let body = checked.map { $0.pointsAtSecretBodyField ? $0.withoutValue() : $0 }
            result.findings = security + parameters + body
            if !security.isEmpty {
                result.refusalStatus = 401
            } else if unsupported {
                result.refusalStatus = 415
            } else if !result.findings.isEmpty {
                result.refusalStatus = 400
            }
            return result
        }
    }

    private var validator: SchemaValidator {
        SchemaValidator(files: spec.files, dialect: spec.dialect, direction: .request)
    }

    // MARK: Security

    /// Empty when one of the requirements (alternatives) is met in full.
    private func checkSecurity(_ operation: SpecOperation, _ request: RecordedRequest) -> [SpecFinding] {
        guard !operation.security.isEmpty else { return [] }
        var missing: [String] = []
        for requirement in operation.security {
            // `{}` among the alternatives: anonymous access is allowed.
            if requirement.isEmpty { return [] }
            let unmet = requirement.keys.sorted().filter { !satisfies($0, request) }
            if unmet.isEmpty { return [] }
            missing.append(unmet.joined(separator: " and "))
        }
        return [
            SpecFinding(
                rule: "security/missing", pointer: "/header/Authorization",
                message: "\(operation.displayName) needs credentials: \(missing.joined(separator: ", or "))",
                source: "\(operation.location.file.lastPathComponent)#\(operation.location.pointer)/security")
        ]
    }

    private func satisfies(_ schemeName: String, _ request: RecordedRequest) -> Bool {
        guard case .object(let scheme)? = spec.securitySchemes[schemeName],
            case .string(let type)? = scheme["type"]
        else { return false }
        switch type {
        case "apiKey":
            guard case .string(let name)? = scheme["name"], case .string(let place)? = scheme["in"] else {
                return false
            }
            switch place {
            case "header": return !(request.header(name) ?? "").isEmpty
            case "query": return request.query.contains { $0.name == name && !$0.value.isEmpty }
            case "cookie": return Self.cookies(request)[name] != nil
            default: return false
            }
        case "http":
            let wanted =
                (scheme["scheme"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? "")
                .lowercased()
            guard let authorization = request.header("Authorization"),
                let space = authorization.firstIndex(of: " ")
            else { return false }
            let given = authorization[..<space].lowercased()
            let credentials = authorization[authorization.index(after: space)...].trimmingCharacters(
                in: .whitespaces)
            guard given == wanted, !credentials.isEmpty else { return false }
            if wanted == "basic" {
                guard let decoded = Data(base64Encoded: credentials),
                    let text = String(data: decoded, encoding: .utf8)
                else { return false }
                return text.contains(":")
            }
            return true
        case "oauth2", "openIdConnect":
            guard let authorization = request.header("Authorization") else { return false }
            return authorization.lowercased().hasPrefix("bearer ") && authorization.count > 7
        default:
            return false
        }
    }

    /// The request's cookies by name (RFC 6265 `Cookie` syntax).
    static func cookies(_ request: RecordedRequest) -> [String: String] {
        var cookies: [String: String] = [:]
        for line in request.headerValues("Cookie") {
            for pair in line.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                if cookies[name] == nil { cookies[name] = parts[1].trimmingCharacters(in: .whitespaces) }
            }
        }
        return cookies
    }

    // MARK: Parameters

    /// Whether a parameter's value is a secret (``SecretMask/standard``):
    /// every cookie, and headers and query parameters named like credentials.
    static func isSecret(_ parameter: SpecParameter) -> Bool {
        switch parameter.location {
        case .cookie: true
        case .header: SecretMask.standard.hidesHeader(parameter.name)
        case .query: SecretMask.standard.hidesQuery(parameter.name)
        case .path: false
        }
    }

    private func checkParameters(
        _ operation: SpecOperation, _ request: RecordedRequest, pathValues: [String: String]
    )
        -> [SpecFinding]
    {
        var findings: [SpecFinding] = []
        let pairs = request.query
        // Read only when a parameter is a cookie: most operations have none.
        let cookies = operation.parameters.contains { $0.location == .cookie } ? Self.cookies(request) : [:]
        for parameter in operation.parameters {
            let value: JSONValue?
            switch parameter.location {
            case .path:
                value = pathValues[parameter.name].map {
                    ParameterDecoding.simple(parameter, $0.removingPercentEncoding ?? $0)
                }
            case .query:
                value = ParameterDecoding.query(parameter, pairs)
            case .header:
                let lines = request.headerValues(parameter.name)
                value =
                    lines.isEmpty
                    ? nil
                    : ParameterDecoding.simple(parameter, lines.joined(separator: ","))
            case .cookie:
                value = cookies[parameter.name].map {
                    ParameterDecoding.simple(parameter, $0)
                }
            }
            let pointer = "/\(parameter.location.rawValue)/\(JSONPointer.escape(parameter.name))"
            guard let value else {
                if parameter.required {
                    findings.append(
                        SpecFinding(
                            rule: "parameter/missing", pointer: pointer,
                            message:
                                "the required \(parameter.location.rawValue) parameter \(parameter.name) is missing"
                        ))
                }
                continue
            }
            if let schema = parameter.schema {
                let found = validator.validate(
                    value, against: schema.value, at: schema.location, pointer: pointer)
                // A secret's value (an API key that fails its pattern) is not repeated in the answer.
                findings += Self.isSecret(parameter) ? found.map { $0.hiding(value) } : found
            }
        }
        return findings
    }

    // MARK: Body

    /// The body's findings, and whether its content type is one the
    /// operation does not take (a 415).
    private func checkBody(_ operation: SpecOperation, _ request: RecordedRequest) -> ([SpecFinding], Bool) {
        guard let (body, location) = operation.requestBody else { return ([], false) }
        let required = body["required"] == .bool(true)
        guard !request.body.isEmpty else {
            return required
                ? (
                    [
                        SpecFinding(
                            rule: "body/missing", pointer: "/body",
                            message: "\(operation.displayName) requires a request body")
                    ], false
                )
                : ([], false)
        }
        guard case .object(let content)? = body["content"], !content.isEmpty else { return ([], false) }
        let contentType = request.header("Content-Type") ?? ""
        guard let (mediaType, media) = Self.media(for: contentType, in: content) else {
            let accepted = content.keys.sorted().joined(separator: ", ")
            return (
                [
                    SpecFinding(
                        rule: "body/content-type", pointer: "/header/Content-Type",
                        message: contentType.isEmpty
                            ? "the body has no Content-Type; \(operation.displayName) takes \(accepted)"
                            : "\(operation.displayName) does not take \(contentType); it takes \(accepted)")
                ], true
            )
        }
        guard case .object(let mediaObject) = media, let schema = mediaObject["schema"] else {
            return ([], false)
        }
        let schemaLocation = location.appending("content").appending(mediaType).appending("schema")
        let essence = Self.essence(contentType)
        let value: JSONValue
        if SchemaKeywords.isJSON(essence) {
            do {
                value = try JSONValue.parse(request.body)
            } catch {
                return (
                    [
                        SpecFinding(
                            rule: "body/json", pointer: "/body", message: "the body is not JSON: \(error)")
                    ], false
                )
            }
        } else if essence == "application/x-www-form-urlencoded" {
            value = formObject(FormDecoding.pairs(request.bodyText ?? ""), schema: (schema, schemaLocation))
        } else if essence == "multipart/form-data" {
            guard let boundary = MultipartDecoding.boundary(contentType),
                let parts = MultipartDecoding.parts(request.body, boundary: boundary)
            else {
                return (
                    [
                        SpecFinding(
                            rule: "body/multipart", pointer: "/body",
                            message: "the multipart body cannot be read")
                    ], false
                )
            }
            value = formObject(
                parts.map {
                    ($0.name, $0.filename != nil ? "(file)" : String(decoding: $0.content, as: UTF8.self))
                },
                schema: (schema, schemaLocation))
        } else {
            // Text and binary bodies: only a string schema's length could apply; not checked.
            return ([], false)
        }
        return (validator.validate(value, against: schema, at: schemaLocation, pointer: "/body"), false)
    }

    /// Form fields as an object, each read as its property's schema says.
    private func formObject(_ pairs: [(name: String, value: String)], schema: (JSONValue, SpecLocation))
        -> JSONValue
    {
        let shape = ParameterDecoding.Shape(schema, files: spec.files)
        var object: [String: JSONValue] = [:]
        for (name, text) in pairs {
            let property = shape.property(name)
            let value =
                property.kind == .array
                ? JSONValue.array([property.item.scalar(text)]) : property.scalar(text)
            if case .array(let existing)? = object[name], case .array(let more) = value {
                object[name] = .array(existing + more)
            } else {
                object[name] = value
            }
        }
        return .object(object)
    }

    /// The media type without parameters, lowercased.
    static func essence(_ contentType: String) -> String {
        (contentType.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The document's entry for a content type: exact, then `type/*`, then `*/*`.
    static func media(for contentType: String, in content: [String: JSONValue]) -> (String, JSONValue)? {
        let essence = essence(contentType)
        guard !essence.isEmpty else { return nil }
        let keyed = Dictionary(content.map { (Self.essence($0.key), ($0.key, $0.value)) }) { first, _ in first
        }
        if let exact = keyed[essence] { return exact }
        if let slash = essence.firstIndex(of: "/"), let range = keyed[essence[..<slash] + "/*"] {
            return range
        }
        return keyed["*/*"]
    }
}
