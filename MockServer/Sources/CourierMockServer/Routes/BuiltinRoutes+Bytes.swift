extension BuiltinRoutes {
    /// The byte at `index` of every `/bytes` and `/stream` body: a fixed,
    /// non-repeating-looking pattern that a client can check without a copy.
    static func patternByte(_ index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: index &* 31 &+ 7 &+ index >> 8)
    }

    /// `/bytes/{n}`: `n` deterministic bytes (`?seed=` picks another sequence).
    static func bytes(_ text: String, _ request: RecordedRequest) -> BuiltinAnswer? {
        guard let count = Int(text), (0...maxBytes).contains(count) else { return nil }
        let body: [UInt8]
        if let seed = request.queryValue("seed").flatMap(UInt64.init) {
            body = SeededRandom.bytes(count, seed: seed)
        } else {
            body = (0..<count).map(patternByte)
        }
        return BuiltinAnswer(
            route: "/bytes/{n}",
            response: StubResponse(headers: [("Content-Type", "application/octet-stream")], body: body))
    }

    /// `/stream/{n}`: `n` JSON lines, sent chunked, one chunk per line.
    static func stream(_ text: String, _ request: RecordedRequest) -> BuiltinAnswer? {
        guard let count = Int(text), (1...100_000).contains(count) else { return nil }
        var body: [UInt8] = []
        for index in 0..<count {
            body += JSONValue.object(["id": .int(Int64(index)), "url": .string(request.uri)]).jsonBytes
            body.append(UInt8(ascii: "\n"))
        }
        return BuiltinAnswer(
            route: "/stream/{n}",
            response: StubResponse(
                headers: [("Content-Type", "application/x-ndjson")], body: body,
                fault: .dribble(chunks: count, overMs: 0)))
    }
}
