import CourierJansson
import Testing

struct JSONValueTests {
    func parse(_ text: String, options: JanssonOptions = .init()) throws(JanssonError) -> JSONValue {
        try JSONValue(parsing: Array(text.utf8), options: options)
    }

    @Test func everyKindAndTypedAccess() throws {
        let value = try parse(
            #"{"n": null, "t": true, "f": false, "i": 9223372036854775807, "r": 0.5, "s": "x", "a": [1, "b"], "o": {"k": -1}}"#
        )
        #expect(value["n"]?.isNull == true)
        #expect(value["t"]?.boolValue == true && value["f"]?.boolValue == false)
        #expect(value["i"]?.intValue == .max)
        #expect(value["r"]?.doubleValue == 0.5 && value["i"]?.doubleValue == 9.223372036854776e18)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["a"]?[1]?.stringValue == "b" && value["a"]?[2] == nil)
        #expect(value["o"]?["k"]?.intValue == -1)
        #expect(value["missing"] == nil && value[0] == nil)
        #expect(value["s"]?.intValue == nil && value["i"]?.stringValue == nil)
    }

    @Test func objectsKeepDocumentOrderAndCompareAsSets() throws {
        let value = try parse(#"{"zeta": 1, "alpha": 2, "mid": 3}"#)
        #expect(value.objectValue.map { $0.map(\.key) } == ["zeta", "alpha", "mid"])
        #expect(value == (try parse(#"{"mid": 3, "zeta": 1, "alpha": 2}"#)))
        #expect(value != (try parse(#"{"mid": 3, "zeta": 1}"#)))
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"zeta":1,"alpha":2,"mid":3}"#)
        #expect(
            String(decoding: value.serialized(sortedKeys: true), as: UTF8.self)
                == #"{"alpha":2,"mid":3,"zeta":1}"#)
    }

    @Test(arguments: [
        #"null"#, #"true"#, #"-0"#, #"[1,2.5,-3e-7,"\u0000\n\"\\é😀"]"#, #"{"a":{"b":[{}]},"c":""}"#,
        #"1.7976931348623157e+308"#, #"[0.1,100.0,1e+21]"#,
    ])
    func serializationRoundTrips(text: String) throws {
        let value = try parse(text)
        #expect(try JSONValue(parsing: value.serialized()) == value)
    }

    @Test func stringsKeepNULAndEscapesAreWritten() throws {
        let value = try parse(#""a\u0000b\u001f""#)
        #expect(value.stringValue?.utf8.count == 4)
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #""a\u0000b\u001f""#)
    }

    @Test func integersStayExactAndRealsReadBack() throws {
        #expect(try parse("9007199254740993").intValue == 9_007_199_254_740_993)
        #expect(try parse("0.1").description == "0.1")
        #expect(try parse("100.0") == .double(100))
        #expect(JSONValue.double(.nan).description == "null")
    }

    @Test func errorsSayWhereAndWhy() {
        #expect(throws: JanssonError.self) { try parse("") }
        do throws(JanssonError) {
            _ = try parse("{\n  \"a\": [1,\n  2,,]\n}")
            Issue.record("parsed a broken document")
        } catch {
            #expect(error.kind == .syntax)
            #expect(error.line == 3)
            #expect(error.offset != nil)
        }
        #expect((try? parse("18446744073709551616")) == nil)
        do throws(JanssonError) {
            _ = try parse("18446744073709551616")
        } catch {
            #expect(error.kind == .numberOutOfRange)
        }
    }

    @Test func limits() throws {
        #expect(throws: JanssonError.self) { try parse("[1,2,3]", options: JanssonOptions(maxInputSize: 3)) }
        #expect(throws: JanssonError.self) { try parse("[[[[1]]]]", options: JanssonOptions(maxDepth: 3)) }
        #expect(try parse("[[[1]]]", options: JanssonOptions(maxDepth: 3))[0]?[0]?[0]?.intValue == 1)
        do throws(JanssonError) {
            _ = try parse(#"{"a": 1, "a": 2}"#, options: JanssonOptions(rejectDuplicateKeys: true))
            Issue.record("accepted a duplicate key")
        } catch {
            #expect(error.kind == .duplicateKey)
        }
        #expect(try parse(#"{"a": 1, "a": 2}"#)["a"]?.intValue == 2)
        do throws(JanssonError) {
            _ = try JSONValue(parsing: [0x22, 0xFF, 0x22])
            Issue.record("accepted invalid UTF-8")
        } catch {
            #expect(error.kind == .invalidUTF8)
        }
        let repaired = try JSONValue(
            parsing: [0x22, 0x61, 0xFF, 0x22], options: JanssonOptions(invalidUTF8: .replace))
        #expect(repaired.stringValue == "a\u{FFFD}")
    }

    @Test func literalsAndEditing() {
        var object: JSONObject = ["b": .int(1), "a": .string("x")]
        object["c"] = .array([.null])
        object["b"] = nil
        #expect(object.map(\.key) == ["a", "c"])
        object["a"] = .bool(true)
        #expect(object.map(\.key) == ["a", "c"] && object["a"] == .bool(true) && object.count == 2)
    }
}
