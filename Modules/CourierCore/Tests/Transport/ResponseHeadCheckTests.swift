@_spi(Transport) import CourierCore
import HTTPTypes
import Testing

/// The framing rules both transports apply to a response head. The cases
/// marked "found by fuzz-response-head" came from the fuzzer's reference model
/// of RFC 9110 §8.6.
struct ResponseHeadCheckTests {
    @Test(arguments: [
        (["12"], 12), (["5, 5"], 5), (["5", "5"], 5), (["\t7 "], 7),
        // found by fuzz-response-head: equal numbers written differently were "conflicting"
        (["05, 5"], 5), (["0"], 0),
    ])
    func lengthsThatAgree(values: [String], length: Int) throws {
        #expect(try ResponseHeadCheck.contentLength(values) == length)
    }

    @Test func noFieldIsNoLength() throws {
        #expect(try ResponseHeadCheck.contentLength([String]()) == nil)
    }

    @Test(arguments: [
        ["5", "6"], ["5, 6"], ["-1"], ["+5"], ["0x10"], ["5.0"],
        // found by fuzz-response-head: these were accepted
        ["5 6"],  // the second number was ignored: 5
        [""], ["5,"], [", 5"],  // empty members were skipped
        ["99999999999999999999999"],  // too large for Int: read as no length at all
    ])
    func lengthsThatAreRefused(values: [String]) {
        #expect(throws: TransportError.self, "\(values)") { try ResponseHeadCheck.contentLength(values) }
        do {
            _ = try ResponseHeadCheck.contentLength(values)
        } catch {
            #expect(error.code == .protocolError)
        }
    }

    /// The byte-level entry CourierCurl uses, one field at a time, gives what
    /// the list form gives for the same values.
    @Test(
        arguments: [
            (["12"], 12), (["5, 5"], 5), (["5", "5"], 5), (["\t7 "], 7), (["05, 5"], 5), (["0"], 0),
            (["5", "6"], nil), (["5, 6"], nil), (["-1"], nil), (["5 6"], nil), ([""], nil), (["5,"], nil),
            ([", 5"], nil), (["99999999999999999999999"], nil), (["7", "07", " 7 , 7"], 7),
        ] as [([String], Int?)])
    func fieldByFieldMatchesTheList(values: [String], length: Int?) {
        var agreed: Int?
        var refused = false
        for value in values {
            let earlier = agreed
            let outcome = Array(value.utf8).withUnsafeBytes { bytes in
                Result { () throws(TransportError) in
                    try ResponseHeadCheck.contentLength(fieldValue: bytes, agreeingWith: earlier)
                }
            }
            switch outcome {
            case .success(let length): agreed = length
            case .failure(let error):
                #expect(error.code == .protocolError)
                refused = true
            }
            if refused { break }
        }
        #expect(refused == (length == nil), "\(values)")
        if let length { #expect(agreed == length) }
        #expect((try? ResponseHeadCheck.contentLength(values)) == length)
    }

    @Test func lengthWithTransferEncodingIsRefused() {
        var fields = HTTPFields()
        fields[.contentLength] = "5"
        fields[.transferEncoding] = "chunked"
        #expect(throws: TransportError.self) { try ResponseHeadCheck.validate(fields) }
    }
}
