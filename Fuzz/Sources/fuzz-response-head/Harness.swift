@_spi(Transport) import CourierCore
import FuzzSupport
import HTTPTypes

@testable import CourierCurl

// The response-head parser CourierCurl feeds libcurl's header lines to, and
// the checks every transport applies to a head (ResponseHeadCheck). The input
// is a raw head, cut into lines at LF as libcurl would hand them over.
//
// Checked beyond "no crash":
// - a head the parser accepts has a status of 100–999 and field values
//   without CR, LF or NUL;
// - the two transports agree: a head CurlResponseHead accepts passes
//   ResponseHeadCheck.validate too (URLSession's path), with the same length;
// - Content-Length follows RFC 9110 §8.6 exactly, against a reference model
//   written here from the RFC: digits only, a list only of equal members, a
//   value too large for Int refused rather than ignored.

/// The reference: `nil` for no field, `.some(nil)` for a value to refuse.
func referenceLength(_ values: [String]) -> Int?? {
    var length: Int?
    for text in values {
        let members = text.split(separator: ",", omittingEmptySubsequences: false)
        for member in members {
            let trimmed = member.utf8.drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }
            let digits = Array(trimmed.reversed())
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = Int(String(decoding: digits, as: UTF8.self))
            else { return .some(nil) }
            if let length, length != value { return .some(nil) }
            length = value
        }
    }
    return length.map { .some($0) } ?? nil
}

/// libFuzzer's entry point: one input; returns 0 (keep the input if new).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let input = FuzzInput(bytes)
    var head = CurlResponseHead()
    var refused: TransportError?
    for line in bytes.split(separator: 10, omittingEmptySubsequences: false) {
        let withEnd = Array(line) + [10]
        refused = withEnd.withUnsafeBytes { head.take($0) }
        if refused != nil { break }
    }

    // The shared check on its own, over the values as a parser would split them.
    let lengthValues = bytes.split(separator: 10).compactMap { line -> String? in
        var text = String(decoding: line, as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        guard text.lowercased().hasPrefix("content-length:") else { return nil }
        return String(text.dropFirst("content-length:".count))
    }
    let expected = referenceLength(lengthValues)
    let actual: Int?? =
        switch Result(catching: { () throws(TransportError) in
            try ResponseHeadCheck.contentLength(lengthValues)
        }) {
        case .success(let value): value.map { .some($0) } ?? nil
        case .failure: .some(nil)
        }
    if actual != expected {
        finding(
            "Content-Length \(lengthValues): expected \(String(describing: expected)), got \(String(describing: actual))",
            input)
    }

    guard refused == nil else { return 0 }
    if let status = head.status, !(100...999).contains(status) {
        finding("accepted status \(status)", input)
    }
    for field in head.fields where field.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
        finding("field \(field.name) kept a CR, LF or NUL", input)
    }
    do {
        try ResponseHeadCheck.validate(head.fields)
    } catch {
        finding("CurlResponseHead accepted a head ResponseHeadCheck refuses: \(error)", input)
    }
    let shared = try? ResponseHeadCheck.contentLength(head.fields[values: .contentLength])
    if shared != head.contentLength {
        finding(
            "the transports disagree on the length: \(String(describing: head.contentLength)) vs \(String(describing: shared))",
            input)
    }
    return 0
}
