import CourierCore
import Testing

struct ParameterEncodingTests {
    @Test func arraysUseBracketsByDefault() throws {
        let query = try ParameterEncoding.default.encode(["tags": ["a", "b"]])
        #expect(query == "tags%5B%5D=a&tags%5B%5D=b")
    }

    @Test(arguments: [
        (ParameterEncoding.ArrayStyle.brackets, "t%5B%5D=1&t%5B%5D=2"),
        (.repeatKey, "t=1&t=2"),
        (.indexed, "t%5B0%5D=1&t%5B1%5D=2"),
        (.commaSeparated, "t=1%2C2"),
    ])
    func arrayStyles(style: ParameterEncoding.ArrayStyle, expected: String) throws {
        #expect(try ParameterEncoding(arrayStyle: style).encode(["t": [1, 2]]) == expected)
    }

    @Test func nestedObjectsAndArraysFlattenWithBrackets() throws {
        let pairs = try ParameterEncoding.default.flatten([
            "filter": ["min": 3, "tags": ["x"], "deep": ["a": true]]
        ])
        #expect(
            pairs.map { "\($0.0)=\($0.1)" } == ["filter[min]=3", "filter[tags][]=x", "filter[deep][a]=true"])
    }

    @Test func boolsNullsAndNumbersFollowTheConvention() throws {
        let parameters: Parameters = [
            "yes": true, "no": false, "gone": nil, "pi": 3.5, "whole": 2.0, "n": -4,
        ]
        #expect(try ParameterEncoding.default.encode(parameters) == "yes=true&no=false&pi=3.5&whole=2&n=-4")
        let numeric = ParameterEncoding(boolStyle: .numeric, nullStyle: .emptyValue)
        #expect(try numeric.encode(parameters) == "yes=1&no=0&gone=&pi=3.5&whole=2&n=-4")
    }

    @Test func unicodeAndReservedCharactersArePercentEncoded() throws {
        let query = try ParameterEncoding.default.encode([
            "q": "a b&c=d/e?f#g+h%", "名": "值😀", "safe": "A-z_0.9~",
        ])
        #expect(
            query
                == "q=a%20b%26c%3Dd%2Fe%3Ff%23g%2Bh%25&%E5%90%8D=%E5%80%BC%F0%9F%98%80&safe=A-z_0.9~")
    }

    @Test func keysKeepTheirWrittenOrder() throws {
        #expect(try ParameterEncoding.default.encode(["z": 1, "a": 2, "m": 3]) == "z=1&a=2&m=3")
    }

    @Test func commaSeparatedRejectsNestedValues() {
        #expect(throws: CourierError.self) {
            try ParameterEncoding(arrayStyle: .commaSeparated).encode(["t": [["x": 1]]])
        }
    }

    @Test func repeatedKeysKeepTheFirstPositionAndLastValue() {
        let parameters = Parameters([("a", 1), ("b", 2), ("a", 3)])
        #expect(parameters.pairs.map(\.key) == ["a", "b"])
        #expect(parameters["a"] == 3)
    }

    @Test func mergingLetsTheOtherSideWin() {
        let merged = (["a": 1, "b": 2] as Parameters).merging(["b": 9, "c": 3])
        #expect(merged == ["a": 1, "b": 9, "c": 3])
    }
}
