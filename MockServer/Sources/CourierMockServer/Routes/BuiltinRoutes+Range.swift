extension BuiltinRoutes {
    /// `/range/{n}`'s `Last-Modified`; fixed so `If-Range` with a date is testable.
    static let rangeLastModified = "Wed, 21 Oct 2015 07:28:00 GMT"

    /// `/range/{n}`: `n` deterministic bytes (`?seed=` picks another
    /// sequence, and another `ETag`) with `Accept-Ranges: bytes`, an `ETag`
    /// and a `Last-Modified`, so that ``RangeRequests`` answers `Range`
    /// requests for it with 206.
    static func range(_ text: String, _ request: RecordedRequest) -> BuiltinAnswer? {
        guard let count = Int(text), (0...maxBytes).contains(count) else { return nil }
        let seed = request.queryValue("seed").flatMap(UInt64.init)
        let body = seed.map { SeededRandom.bytes(count, seed: $0) } ?? (0..<count).map(patternByte)
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes"),
            ("ETag", "\"range-\(count)-\(seed ?? 0)\""), ("Last-Modified", rangeLastModified),
        ]
        return BuiltinAnswer(route: "/range/{n}", response: StubResponse(headers: headers, body: body))
    }
}

/// Byte ranges (RFC 9110 §14) for any complete 200 response that says
/// `Accept-Ranges: bytes` — a stub's or a built-in route's: a `GET` with one
/// `Range: bytes=first-last`, `first-` or `-suffix` gets 206 with that slice
/// and `Content-Range`, or 416 when it starts past the end. An `If-Range`
/// that matches neither the strong `ETag` nor the `Last-Modified` gets the
/// whole 200 instead, as do several ranges at once. The response's fault,
/// if any, applies to what is sent.
enum RangeRequests {
    /// Whether ``apply(_:for:)`` could change the answer: a `GET` with a
    /// `Range` header, to a 200 that accepts byte ranges.
    static func mayApply(_ response: StubResponse, for request: RecordedRequest) -> Bool {
        request.method == "GET" && response.status == 200 && request.header("Range") != nil
            && response.headers.contains { HeaderName.equal($0.name, "accept-ranges") && $0.value == "bytes" }
    }

    static func apply(_ response: StubResponse, for request: RecordedRequest) -> StubResponse {
        guard mayApply(response, for: request), let range = request.header("Range") else { return response }
        if let condition = request.header("If-Range"), !matches(condition, response) { return response }
        let size = response.body.count
        guard let bounds = bounds(range, size: size) else { return response }
        var ranged = response
        guard let (first, last) = bounds else {
            ranged.status = 416
            ranged.body = []
            ranged.headers.append(("Content-Range", "bytes */\(size)"))
            return ranged
        }
        ranged.status = 206
        ranged.body = Array(response.body[first...last])
        ranged.headers.append(("Content-Range", "bytes \(first)-\(last)/\(size)"))
        return ranged
    }

    /// Whether `If-Range` names this representation: its strong `ETag`, or
    /// exactly its `Last-Modified` date.
    private static func matches(_ condition: String, _ response: StubResponse) -> Bool {
        func header(_ name: String) -> String? {
            response.headers.last { HeaderName.equal($0.name, name) }?.value
        }
        if condition.hasPrefix("\"") { return header("etag") == condition }
        if condition.hasPrefix("W/") { return false }
        return header("last-modified") == condition
    }

    /// The one range asked for: `nil` to ignore the field (malformed, or
    /// several ranges), `.some(nil)` when it cannot be satisfied.
    private static func bounds(_ field: String, size: Int) -> (Int, Int)?? {
        guard field.hasPrefix("bytes="), !field.contains(",") else { return nil }
        let spec = field.dropFirst(6).trimmed
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix >= 0 else { return nil }
            guard suffix > 0, size > 0 else { return .some(nil) }
            return .some((max(0, size - suffix), size - 1))
        }
        guard let first = Int(parts[0]), first >= 0 else { return nil }
        let last = parts[1].isEmpty ? Int.max : Int(parts[1])
        guard let last, last >= first else { return nil }
        guard first < size else { return .some(nil) }
        return .some((first, min(last, size - 1)))
    }
}
