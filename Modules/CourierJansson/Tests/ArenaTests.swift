import CourierJansson
import Testing

/// The arena behind jansson's allocator hooks: the same trees as malloc, on
/// any number of threads at once, arena and malloc parses mixed.
struct ArenaTests {
    static let documents = [
        #"{"code": 0, "msg": "ok", "data": {"id": 7, "tags": ["a", "b"], "nested": {"x": [1.5, null, true]}}}"#,
        "[" + (0..<2_000).map { #"{"i": \#($0), "s": "value \#($0)"}"# }.joined(separator: ",") + "]",
        #""\u0000 and \ud83d\ude00""#, "42", "[]",
    ]

    @Test func arenaAndMallocBuildTheSameTrees() throws {
        for document in Self.documents {
            let bytes = Array(document.utf8)
            let arena = try JSONValue(parsing: bytes, options: JanssonOptions(arena: true))
            let heap = try JSONValue(parsing: bytes, options: JanssonOptions(arena: false))
            #expect(arena == heap)
        }
    }

    @Test func manyThreadsMixingArenaAndMalloc() async throws {
        let expected = try Self.documents.map {
            try JSONValue(parsing: Array($0.utf8), options: JanssonOptions(arena: false))
        }
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<50 {
                        let index = (task + round) % Self.documents.count
                        let options = JanssonOptions(arena: (task + round) % 2 == 0)
                        let value = try JSONValue(
                            parsing: Array(Self.documents[index].utf8), options: options)
                        if value != expected[index] { wrong += 1 }
                        // Decoding keeps the tree alive across the walk.
                        _ = try JanssonDecoder(options: options).decode(
                            [String: Int].self, from: Array(#"{"a": 1}"#.utf8))
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func aFailedParseReleasesItsArena() {
        for _ in 0..<1_000 {
            #expect(throws: JanssonError.self) {
                try JSONValue(parsing: Array(#"{"a": [1, 2, "#.utf8), options: JanssonOptions(arena: true))
            }
        }
    }
}
