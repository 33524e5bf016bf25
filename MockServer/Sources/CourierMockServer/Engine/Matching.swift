/// The result of checking one matcher of a stub against a request.
public struct MatcherResult: Sendable, Hashable, Encodable {
    /// What was checked, e.g. `header Authorization matches /Bearer .+/`.
    public var matcher: String
    /// What the request had.
    public var actual: String
    /// Whether it held.
    public var passed: Bool
}

extension RequestPattern {
    /// Whether every matcher holds: the fast path, without building a report.
    func matches(_ request: RecordedRequest, includeBody: Bool = true) -> Bool {
        if let method, request.method != method { return false }
        if let url {
            let path = request.path
            switch url {
            case .exact(let expected): if request.uri != expected { return false }
            case .path(let expected): if path != expected { return false }
            case .template(let template): if !PathTemplate.matches(template, path) { return false }
            case .pattern:
                if !Self.evaluate(url, request).passed { return false }
            }
        }
        if !query.isEmpty {
            let pairs = request.query
            for (name, matcher) in query where !matcher.matches(pairs.first { $0.name == name }?.value) {
                return false
            }
        }
        for (name, matcher) in headers where !matcher.matches(request.header(name)) { return false }
        if includeBody {
            for pattern in body where !Self.evaluate(pattern, request).passed { return false }
        }
        return true
    }

    /// Checks every matcher; `includeBody` false skips body patterns (for
    /// faults decided on the head alone). What a result shows of the
    /// request and of the stub is masked by ``SecretMask/standard``: reports
    /// travel in answers (the near misses of a 404), which clients log.
    func evaluate(_ request: RecordedRequest, includeBody: Bool = true) -> [MatcherResult] {
        let mask = SecretMask.standard
        var results: [MatcherResult] = []
        if let method {
            results.append(
                .init(matcher: "method \(method)", actual: request.method, passed: request.method == method))
        }
        if let url {
            results.append(Self.evaluate(url, request))
        }
        let query = request.query
        for (name, matcher) in self.query.sorted(by: { $0.key < $1.key }) {
            let value = query.first { $0.name == name }?.value
            let secret = mask.hidesQuery(name)
            results.append(
                .init(
                    matcher: "query \(name) \(secret ? matcher.kind : matcher.description)",
                    actual: value.map { secret ? mask.mask : $0 } ?? "(absent)",
                    passed: matcher.matches(value)))
        }
        for (name, matcher) in headers.sorted(by: { $0.key < $1.key }) {
            let value = request.header(name)
            let secret = mask.hidesHeader(name)
            results.append(
                .init(
                    matcher: "header \(name) \(secret ? matcher.kind : matcher.description)",
                    actual: value.map { secret ? mask.mask : $0 } ?? "(absent)",
                    passed: matcher.matches(value)))
        }
        if includeBody {
            for pattern in body { results.append(Self.evaluate(pattern, request)) }
        }
        return results
    }

    private static func evaluate(_ url: URLMatch, _ request: RecordedRequest) -> MatcherResult {
        switch url {
        case .exact(let expected):
            let mask = SecretMask.standard
            return .init(
                matcher: "url \(mask.target(expected))", actual: mask.target(request.uri),
                passed: request.uri == expected)
        case .path(let expected):
            return .init(
                matcher: "urlPath \(expected)", actual: request.path, passed: request.path == expected)
        case .template(let template):
            return .init(
                matcher: "urlPathTemplate \(template)", actual: request.path,
                passed: PathTemplate.matches(template, request.path))
        case .pattern(let pattern):
            let passed = (try? Regex(pattern)).flatMap { try? $0.wholeMatch(in: request.path) } != nil
            return .init(matcher: "urlPathPattern /\(pattern)/", actual: request.path, passed: passed)
        }
    }

    private static func evaluate(_ pattern: BodyPattern, _ request: RecordedRequest) -> MatcherResult {
        let text =
            request.bodyText.map { SecretMask.standard.body($0, contentType: request.header("Content-Type")) }
            ?? "(\(request.body.count) bytes, not UTF-8)"
        let actual = text.count > 200 ? String(text.prefix(200)) + "…" : text
        let passed: Bool
        switch pattern {
        case .equalTo(let expected): passed = request.bodyText == expected
        case .contains(let part): passed = request.bodyText?.contains(part) ?? false
        case .equalToJson(let expected):
            passed = (try? JSONValue.parse(request.body)).map { $0.numericallyEquals(expected) } ?? false
        case .containsJson(let subset):
            passed = (try? JSONValue.parse(request.body)).map { $0.contains(subset) } ?? false
        case .form(let fields):
            let pairs = FormDecoding.pairs(request.bodyText ?? "")
            passed = fields.allSatisfy { name, matcher in
                matcher.matches(pairs.first { $0.name == name }?.value)
            }
        }
        let mask = SecretMask.standard
        let shown =
            switch pattern {
            case .equalToJson(let json): "equalToJson \(mask.json(json))"
            case .containsJson(let json): "containsJson \(mask.json(json))"
            default: pattern.description
            }
        return .init(matcher: "body \(shown)", actual: actual, passed: passed)
    }
}

/// `/users/{id}/posts/{post}`: each `{name}` matches one non-empty segment.
enum PathTemplate {
    static func matches(_ template: String, _ path: String) -> Bool {
        let expected = template.split(separator: "/", omittingEmptySubsequences: false)
        let actual = path.split(separator: "/", omittingEmptySubsequences: false)
        guard expected.count == actual.count else { return false }
        return zip(expected, actual).allSatisfy { pattern, segment in
            pattern.hasPrefix("{") && pattern.hasSuffix("}") ? !segment.isEmpty : pattern == segment
        }
    }
}

/// The closest stubs to a request nobody matched, and why each missed.
public struct NearMiss: Sendable, Hashable, Encodable {
    /// The stub.
    public var stubID: String
    /// Its matchers that failed.
    public var failed: [MatcherResult]
    /// How many of its matchers held.
    public var passedCount: Int
}
