import CourierJansson
import Foundation
import Testing

/// The same fixtures through `JSONDecoder` and `JanssonDecoder`: the same
/// model, or the same kind of failure, every time.
struct DecoderConformanceTests {
    struct Address: Codable, Equatable {
        let street: String
        let city: String?
    }

    struct Person: Codable, Equatable {
        enum Role: String, Codable { case admin, member }
        enum Level: Int, Codable {
            case low = 1
            case high = 2
        }
        let id: Int
        let name: String
        let nickname: String?
        let role: Role
        let level: Level
        let scores: [Double]
        let tags: [String?]
        let address: Address
        let previous: [Address]
        let active: Bool
    }

    static let person = #"""
        {"id": 7, "name": "Ada", "role": "admin", "level": 2, "scores": [1.5, 2, -0.25],
         "tags": ["a", null, "c"], "address": {"street": "Main", "city": null},
         "previous": [{"street": "Old"}], "active": true, "ignored": {"deep": [1, 2, 3]}}
        """#

    @Test func nestingOptionalsArraysOfOptionalsAndEnums() {
        expectSame(Person.self, Self.person)
        let (_, jansson) = outcomes(Person.self, Array(Self.person.utf8))
        #expect(jansson != .failure("dataCorrupted"))
    }

    @Test(arguments: [
        #"{"id": "7", "name": "Ada"}"#, #"{"id": null}"#, #"{"name": "Ada"}"#, #"[1, 2]"#, #""text""#,
        #"{"id": 7, "name": "Ada", "role": "owner", "level": 2, "scores": [], "tags": [], "address": {"street": "x"}, "previous": [], "active": true}"#,
        #"{"id": 7, "name": "Ada", "role": "admin", "level": 3, "scores": [], "tags": [], "address": {"street": "x"}, "previous": [], "active": true}"#,
        #"{"id": 7.5, "name": "Ada"}"#, #"{"id": 7, "name": 5}"#, #"{"id": true}"#,
    ])
    func typeMismatchesMissingKeysAndBadEnums(json: String) {
        expectSame(Person.self, json)
    }

    @Test(arguments: [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
        "18446744073709551616", "9007199254740993", "1.0", "1.5", "1e2", "-0", "0", "1E400", "-1e400",
    ])
    func integersAtTheEdges(json: String) {
        expectSame(Int64.self, json)
        expectSame(UInt64.self, json)
        expectSame(Int.self, json)
        expectSame(Int8.self, json)
        expectSame(UInt32.self, json)
    }

    @Test(arguments: [
        "1.7976931348623157e308", "-1.7976931348623157e308", "5e-324", "-0.0", "0.1", "1e400",
        "3.4028235e38", "3.5e38", "123456789012345678901234567890", "2.5",
    ])
    func floatingPointAtTheEdges(json: String) {
        expectSame(Double.self, json)
        expectSame(Float.self, json)
        expectSame(Decimal.self, json)
    }

    /// A documented difference: a large integral number written as a real
    /// becomes the nearest `Double` first, where JSONDecoder reads the text.
    @Test func integralRealsBeyond2To53() throws {
        #expect(
            try JanssonDecoder().decode(Int64.self, from: Array("8.982621765838453e+18".utf8))
                == 8_982_621_765_838_452_736)
        #expect(
            try JSONDecoder().decode(Int64.self, from: Data("8.982621765838453e+18".utf8))
                == 8_982_621_765_838_453_000)
    }

    /// A raw NUL byte ends the document for jansson's reader; Courier refuses it.
    @Test func rawNULBytesAreRefused() {
        expectSame(JSONValue.self, [0x6E, 0x75, 0x6C, 0x6C, 0x00])
        expectSame(Int.self, Array("12".utf8) + [0] + Array("3".utf8))
    }

    /// A documented difference: jansson cannot hold a NUL in an object key
    /// (JSONTestSuite's `y_object_escaped_null_in_key`), so both jansson paths
    /// refuse the document with a decoding error, where JSONDecoder accepts it.
    @Test func anEscapedNULInAKeyIsRefused() throws {
        let document = #"{"a\u0000b": 1}"#
        #expect(throws: DecodingError.self) {
            try JanssonDecoder().decode([String: Int].self, from: Array(document.utf8))
        }
        #expect(throws: (any Error).self) { try JSONValue(parsing: Array(document.utf8)) }
        #expect(try JSONDecoder().decode([String: Int].self, from: Data(document.utf8)) == ["a\u{0}b": 1])
    }

    /// A documented difference: jansson reads a number below the smallest
    /// subnormal as 0, where JSONDecoder refuses it.
    @Test func underflowReadsAsZero() throws {
        #expect(try JanssonDecoder().decode(Double.self, from: Array("1e-400".utf8)) == 0)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Double.self, from: Data("1e-400".utf8))
        }
    }

    @Test func largeIntegersStayExactInsideModels() {
        struct Ids: Codable, Equatable {
            let signed: Int64
            let unsigned: UInt64
        }
        expectSame(Ids.self, #"{"signed": 9223372036854775807, "unsigned": 18446744073709551615}"#)
        expectSame([Int64].self, "[9007199254740993, -9007199254740993]")
    }

    @Test(arguments: [
        #""plain""#, #""esc\n\t\r\b\f\"\\\/""#, #""\u00e9\u4e2d\ud83d\ude00""#, #""nul\u0000inside""#,
        #""\ud83d""#, #""bad \x escape""#, "\"raw\ttab\"", #""""#,
    ])
    func strings(json: String) {
        expectSame(String.self, json)
    }

    @Test(arguments: ["{}", "[]", "[[], {}]", "{\"a\": {}}", "   {}   ", "\u{FEFF}{}"])
    func emptyContainers(json: String) {
        expectSame(JSONValue.self, json)
    }

    /// Malformed input fails in both. JSONDecoder validates lazily, so it may
    /// report the type error it meets first where jansson reports the syntax.
    @Test(arguments: [
        "{} x", "", " ", "nul", "{\"a\" 1}", "{\"a\":1", "[1, 2", "\"unterminated", "01", "+1", ".5", "NaN",
        "Infinity", "[1 2]",
    ])
    func malformedInputFailsInBoth(json: String) {
        let (foundation, jansson) = outcomes(JSONValue.self, Array(json.utf8))
        #expect(jansson == .failure("dataCorrupted"), "\(json): \(jansson)")
        if case .value(let value) = foundation { Issue.record("JSONDecoder accepted \(json) as \(value)") }
    }

    /// A documented difference: JSONDecoder accepts a trailing comma; jansson,
    /// following RFC 8259, does not.
    @Test func trailingCommasAreRefused() {
        #expect(throws: DecodingError.self) {
            try JanssonDecoder().decode([Int].self, from: Array("[1,]".utf8))
        }
    }

    /// A documented difference: JSONDecoder keeps a duplicate key's first
    /// value, jansson its last; `rejectDuplicateKeys` refuses such documents.
    @Test func duplicateKeys() throws {
        #expect(
            try JanssonDecoder().decode([String: Int].self, from: Array(#"{"a": 1, "a": 2}"#.utf8)) == [
                "a": 2
            ])
        let strict = JanssonDecoder(options: JanssonOptions(rejectDuplicateKeys: true))
        #expect(throws: DecodingError.self) {
            try strict.decode([String: Int].self, from: Array(#"{"a": 1, "a": 2}"#.utf8))
        }
    }

    /// Both accept 512 levels and refuse more. (A model that swallows container
    /// errors with `try?` sees the limit as a type mismatch here: JanssonDecoder
    /// checks depth as it descends, JSONDecoder while parsing.)
    @Test(arguments: [100, 511, 512, 513, 1000])
    func deepNesting(depth: Int) {
        let json = Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        let (foundation, jansson) = outcomes(JSONValue.self, json)
        // Both accept exactly the same depths; the failure kinds may differ (above).
        if case .value = foundation {
            #expect(jansson == foundation)
        } else if case .value(let value) = jansson {
            Issue.record("JanssonDecoder accepted depth \(depth) as \(value); JSONDecoder refused it")
        }
        let accepted = (try? JanssonDecoder().decode(Nested.self, from: json)) != nil
        #expect(accepted == (depth <= 512))
        #expect(((try? JSONDecoder().decode(Nested.self, from: Data(json))) != nil) == (depth <= 512))
    }

    /// Arrays in arrays, any depth.
    struct Nested: Decodable {
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            while !container.isAtEnd { _ = try container.decode(Nested.self) }
        }
    }

    @Test func invalidUTF8AndByteOrderMarks() {
        expectSame(String.self, [0x22, 0xFF, 0xFE, 0x22])
        expectSame(String.self, [0x22, 0xC3, 0x28, 0x22])
        expectSame([String].self, [0xEF, 0xBB, 0xBF] + Array(#"["bom"]"#.utf8))
        let lenient = JanssonDecoder(options: JanssonOptions(invalidUTF8: .replace))
        #expect((try? lenient.decode(String.self, from: [0x22, 0x61, 0xFF, 0x22])) == "a\u{FFFD}")
    }

    @Test func truncatedInputAtEveryLength() {
        let bytes = Array(Self.person.utf8)
        for length in 0..<bytes.count { expectSame(Person.self, Array(bytes.prefix(length))) }
    }

    @Test func snakeCaseKeys() {
        struct Row: Codable, Equatable {
            let userID: Int
            let firstName: String
            let _private: Bool
            let url2Value: String
        }
        let json = #"{"user_i_d": 1, "first_name": "Ada", "_private": true, "url2_value": "x"}"#
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        expectSame(
            Row.self, json, jansson: JanssonDecoder(keyDecodingStrategy: .convertFromSnakeCase),
            foundation: foundation)
        expectSame(
            [String: Int].self, #"{"a_b": 1, "__c_d__": 2}"#,
            jansson: JanssonDecoder(keyDecodingStrategy: .convertFromSnakeCase), foundation: foundation)
    }

    @Test func dateStrategies() {
        let foundation = JSONDecoder()
        expectSame(Date.self, "700000000.5")
        foundation.dateDecodingStrategy = .secondsSince1970
        expectSame(
            Date.self, "1700000000", jansson: JanssonDecoder(dateDecodingStrategy: .secondsSince1970),
            foundation: foundation)
        foundation.dateDecodingStrategy = .millisecondsSince1970
        expectSame(
            Date.self, "1700000000123", jansson: JanssonDecoder(dateDecodingStrategy: .millisecondsSince1970),
            foundation: foundation)
        foundation.dateDecodingStrategy = .iso8601
        for text in [#""2026-11-22T10:00:00Z""#, #""2026-11-22T10:00:00+02:00""#, #""yesterday""#, "5"] {
            expectSame(
                Date.self, text, jansson: JanssonDecoder(dateDecodingStrategy: .iso8601),
                foundation: foundation)
        }
    }

    @Test func dataAndNonConformingFloats() {
        expectSame(Data.self, #""aGVsbG8=""#)
        expectSame(Data.self, #""not base64!""#)
        expectSame([Data].self, #"["", "AA=="]"#)
        let foundation = JSONDecoder()
        foundation.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        let jansson = JanssonDecoder(
            nonConformingFloatDecodingStrategy: .convertFromString(
                positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan"))
        expectSame([Double].self, #"["+inf", "-inf", 1.5]"#, jansson: jansson, foundation: foundation)
        expectSame([Double].self, #"["+inf"]"#)
        // NaN is not equal to itself: compare its presence instead.
        let nan = try? jansson.decode([Double].self, from: Array(#"["nan"]"#.utf8))
        #expect(nan?.first?.isNaN == true)
    }

    @Test func urlsAndSuperDecoders() {
        expectSame(URL.self, #""https://example.com/a?b=c""#)
        expectSame([URL].self, #"["relative/path"]"#)

        class Base: Codable, Equatable {
            let id: Int
            static func == (lhs: Base, rhs: Base) -> Bool { lhs.id == rhs.id }
        }
        final class Derived: Base {
            let extra: String
            enum Keys: CodingKey { case extra }
            required init(from decoder: any Decoder) throws {
                extra = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .extra)
                try super.init(from: try decoder.container(keyedBy: Keys.self).superDecoder())
            }
        }
        expectSame(Base.self, #"{"id": 3}"#)
        let derived = try? JanssonDecoder().decode(
            Derived.self, from: Array(#"{"extra": "x", "super": {"id": 4}}"#.utf8))
        #expect(derived?.id == 4 && derived?.extra == "x")
    }

    @Test func errorsCarryTheCodingPathAndThePosition() throws {
        let error = #expect(throws: DecodingError.self) {
            try JanssonDecoder().decode(
                Person.self,
                from: Array(
                    #"{"id": 7, "name": "Ada", "role": "admin", "level": 2, "scores": [1, "x"]}"#.utf8))
        }
        if case .typeMismatch(_, let context) = error {
            #expect(context.codingPath.map(\.stringValue) == ["scores", "Index 1"])
        } else {
            Issue.record("expected a type mismatch, got \(String(describing: error))")
        }
        let corrupt = #expect(throws: DecodingError.self) {
            try JanssonDecoder().decode(Person.self, from: Array("{\n  \"id\": 7,\n  \"name\": }".utf8))
        }
        guard case .dataCorrupted(let context) = corrupt, let cause = context.underlyingError as? JanssonError
        else {
            Issue.record("expected a parse error with a position, got \(String(describing: corrupt))")
            return
        }
        #expect(cause.line == 3)
        #expect(cause.column != nil)
    }

    @Test func limits() {
        let small = JanssonDecoder(options: JanssonOptions(maxInputSize: 8))
        #expect(throws: DecodingError.self) { try small.decode([Int].self, from: Array("[1, 2, 3, 4]".utf8)) }
        let shallow = JanssonDecoder(options: JanssonOptions(maxDepth: 3))
        #expect((try? shallow.decode([[[Int]]].self, from: Array("[[[1]]]".utf8))) == [[[1]]])
        #expect(throws: DecodingError.self) {
            try shallow.decode([[[[Int]]]].self, from: Array("[[[[1]]]]".utf8))
        }
    }
}

/// Arrays of strings and numbers take a fast path (read in place, sized
/// once); every element that is not plainly of the type, and every error,
/// must still come out as `JSONDecoder` has it, at the element's index.
struct ScalarArrayTests {
    struct Lists: Codable, Equatable {
        let names: [String]
        let counts: [Int]
        let scores: [Double]
        let nested: [[String]]
    }

    @Test(arguments: [
        #"{"names": ["a", "b"], "counts": [1, 2], "scores": [1.5, 2], "nested": [["x"], []]}"#,
        #"{"names": [], "counts": [3.0], "scores": [], "nested": []}"#,
        #"{"names": ["a", 1], "counts": [], "scores": [], "nested": []}"#,
        #"{"names": ["a", null], "counts": [], "scores": [], "nested": []}"#,
        #"{"names": [], "counts": [1, 2.5], "scores": [], "nested": []}"#,
        #"{"names": [], "counts": [9223372036854775807], "scores": [], "nested": []}"#,
        #"{"names": [], "counts": [], "scores": [1, "2"], "nested": []}"#,
        #"{"names": [], "counts": [], "scores": [], "nested": [["x", 2]]}"#,
        #"{"names": "a", "counts": [], "scores": [], "nested": []}"#,
    ])
    func sameValuesAndFailuresAsJSONDecoder(json: String) {
        expectSame(Lists.self, json)
    }

    @Test func aBadElementIsNamedByItsIndex() throws {
        let json = Array(#"{"names": ["a", "b", 3], "counts": [], "scores": [], "nested": []}"#.utf8)
        do {
            _ = try JanssonDecoder().decode(Lists.self, from: json)
            Issue.record("decoded a number as a string")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["names", "Index 2"])
        }
    }
}
