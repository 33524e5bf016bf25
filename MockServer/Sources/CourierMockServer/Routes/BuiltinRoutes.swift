/// A built-in route's answer.
struct BuiltinAnswer: Sendable {
    /// The route's name for the journal, e.g. `/status/{code}`.
    var route: String
    var response: StubResponse
    var delayMs = 0
    /// When set, the body is not in `response`: this many pattern bytes are
    /// generated while they are written, so huge bodies cost no memory.
    var streamedPatternBytes: Int?
}

/// httpbin-like routes served when no stub matches: one function per feature,
/// each in its own file.
enum BuiltinRoutes {
    /// The longest `/delay/{ms}` honoured.
    static let maxDelayMs = 60_000
    /// The most bytes `/bytes/{n}` (with a seed) and `/stream/{n}` produce.
    static let maxBytes = 64 * 1024 * 1024
    /// The most pattern bytes `/bytes/{n}` streams.
    static let maxStreamedBytes = 1 << 34
    /// Above this size, `/bytes/{n}` streams its pattern instead of building it.
    static let streamingThreshold = 1 << 20

    static func answer(_ request: RecordedRequest) -> BuiltinAnswer? {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(
            String.init)
        guard let first = segments.first else { return nil }
        let rest = Array(segments.dropFirst())
        switch (first, rest.count) {
        case ("anything", _): return anything(request)
        case ("status", 1): return status(rest[0])
        case ("delay", 1): return delay(rest[0], request)
        case ("bytes", 1): return bytes(rest[0], request)
        case ("stream", 1): return stream(rest[0], request)
        case ("redirect", 1): return redirect(rest[0])
        case ("redirect-to", 0): return redirectTo(request)
        case ("cache", 0): return cache(request)
        case ("basic-auth", 2): return basicAuth(user: rest[0], password: rest[1], request)
        case ("digest-auth", _): return digestAuth(rest, request)
        case ("bearer", 0): return bearer(request)
        case ("cookies", 0): return cookies(request)
        case ("cookies", 1) where rest[0] == "set": return setCookies(request, deleting: false)
        case ("cookies", 1) where rest[0] == "delete": return setCookies(request, deleting: true)
        case ("range", 1): return range(rest[0], request)
        case ("gzip", 0): return gzip(request)
        case ("gzip-bomb", 1): return gzipBomb(rest[0], request)
        case ("upload", 0): return upload(request)
        default: return nil
        }
    }

    /// Echoes method, URL, query, headers (in order), body, and the body parsed
    /// as JSON, form or multipart form when it is one (multipart fields under
    /// `form`, files under `files` with name, type, size and SHA-256).
    static func anything(_ request: RecordedRequest) -> BuiltinAnswer {
        BuiltinAnswer(route: "/anything", response: .json(echo(request)))
    }

    /// The request as JSON, as `/anything` and the redirect targets show it.
    static func echo(_ request: RecordedRequest) -> JSONValue {
        var object: [String: JSONValue] = [
            "method": .string(request.method),
            "url": .string(request.uri),
            "path": .string(request.path),
            "args": .object(
                Dictionary(request.query.map { ($0.name, JSONValue.string($0.value)) }) { first, _ in first }),
            "headers": .array(request.headers.map { .array([.string($0.name), .string($0.value)]) }),
            "bodyLength": .int(Int64(request.body.count)),
        ]
        if let text = request.bodyText { object["body"] = .string(text) }
        if !request.body.isEmpty, let json = try? JSONValue.parse(request.body) { object["json"] = json }
        if request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true {
            let pairs = FormDecoding.pairs(request.bodyText ?? "")
            object["form"] = .object(
                Dictionary(pairs.map { ($0.name, JSONValue.string($0.value)) }) { first, _ in first })
        }
        if let boundary = request.header("Content-Type").flatMap(MultipartDecoding.boundary),
            let parts = MultipartDecoding.parts(request.body, boundary: boundary)
        {
            let fields = parts.filter { $0.filename == nil }
            let files = parts.filter { $0.filename != nil }
            object["form"] = .object(
                Dictionary(fields.map { ($0.name, MultipartDecoding.echo($0)) }) { first, _ in first })
            object["files"] = .object(
                Dictionary(files.map { ($0.name, MultipartDecoding.echo($0)) }) { first, _ in first })
        }
        return .object(object)
    }

    /// `/status/{code}`: an empty response with that status (100–599).
    static func status(_ text: String) -> BuiltinAnswer? {
        guard let code = Int(text), (100...599).contains(code) else {
            return BuiltinAnswer(
                route: "/status/{code}",
                response: .json(.object(["error": .string("status must be 100–599")]), status: 400))
        }
        return BuiltinAnswer(route: "/status/{code}", response: StubResponse(status: code))
    }

    /// `/delay/{ms}`: answers like `/anything` after the delay (at most a minute).
    static func delay(_ text: String, _ request: RecordedRequest) -> BuiltinAnswer? {
        guard let milliseconds = Int(text), milliseconds >= 0 else { return nil }
        return BuiltinAnswer(
            route: "/delay/{ms}", response: .json(echo(request)), delayMs: min(milliseconds, maxDelayMs))
    }
}
