extension BuiltinRoutes {
    /// The byte at `index` of every `/bytes` and `/stream` body: a fixed,
    /// non-repeating-looking pattern that a client can check without a copy.
    static func patternByte(_ index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: index &* 31 &+ 7 &+ index >> 8)
    }

    /// `/bytes/{n}`: `n` deterministic bytes (`?seed=` picks another sequence).
    /// Pattern bodies over a megabyte are generated while they are written, up
    /// to 16 GiB, so that a download test measures the client, not the server.
    static func bytes(_ text: String, _ request: RecordedRequest) -> BuiltinAnswer? {
        guard let count = Int(text), count >= 0 else { return nil }
        let headers = [(name: "Content-Type", value: "application/octet-stream")]
        if let seed = request.queryValue("seed").flatMap(UInt64.init) {
            guard count <= maxBytes else { return nil }
            return BuiltinAnswer(
                route: "/bytes/{n}",
                response: StubResponse(headers: headers, body: SeededRandom.bytes(count, seed: seed)))
        }
        guard count <= maxStreamedBytes else { return nil }
        if count > streamingThreshold {
            return BuiltinAnswer(
                route: "/bytes/{n}", response: StubResponse(headers: headers), streamedPatternBytes: count)
        }
        return BuiltinAnswer(
            route: "/bytes/{n}", response: StubResponse(headers: headers, body: (0..<count).map(patternByte)))
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
