import CourierCore
import Foundation
import FuzzSupport

// The multipart/form-data writer. Fields: 0 a boundary (used when flag bit 0
// is set, else a random one), 1 a part name, 2 a filename, 3 a content type,
// 4 the part's bytes, 5 a second text field's value, 6 flags.
//
// Checked beyond "no crash", for every form that builds: a reader that knows
// only RFC 2046 and RFC 7578 gets back what was written —
// - the boundary a server reads from the Content-Type is the one in the body;
// - there are exactly two parts, each with its content unchanged (a boundary
//   inside a part's bytes would split it: the writer must refuse that);
// - each part's head has exactly the lines written (no header injection
//   through a name, filename or content type).

/// The boundary parameter as a server reads it from the Content-Type value.
func boundaryParameter(_ contentType: String) -> String? {
    guard let range = contentType.range(of: "; boundary=") else { return nil }
    let raw = contentType[range.upperBound...]
    if raw.hasPrefix("\"") {
        guard let end = raw.dropFirst().firstIndex(of: "\"") else { return nil }
        return String(raw[raw.index(after: raw.startIndex)..<end])
    }
    return String(raw.prefix { $0 != ";" && $0 != " " && $0 != "\t" })
}

/// The parts of `body` as an RFC 2046 reader splits them: each part's head
/// lines and content.
func readParts(_ body: [UInt8], boundary: String) -> [(head: [String], content: [UInt8])]? {
    let first = Array("--\(boundary)\r\n".utf8)
    let delimiter = Array("\r\n--\(boundary)".utf8)
    guard body.starts(with: first) else { return nil }
    var rest = body[first.count...]
    var parts: [(head: [String], content: [UInt8])] = []
    while true {
        guard let end = rest.firstRange(of: delimiter) else { return nil }
        let part = rest[..<end.lowerBound]
        guard let blank = part.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: part[..<blank.lowerBound], as: UTF8.self)
        parts.append((head.components(separatedBy: "\r\n"), Array(part[blank.upperBound...])))
        rest = rest[end.upperBound...]
        if rest.starts(with: Array("--\r\n".utf8)) {
            return rest.count == 4 ? parts : nil
        }
        guard rest.starts(with: Array("\r\n".utf8)) else { return nil }
        rest = rest.dropFirst(2)
    }
}

/// libFuzzer's entry point: one input; returns 0 (keep the input if new).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    let flags = input.byte(6)
    var form = flags & 1 == 1 ? MultipartForm(boundary: input.text(0)) : MultipartForm()
    let filename = input.bytes(2).isEmpty ? nil : input.text(2)
    let contentType = input.bytes(3).isEmpty ? nil : input.text(3)
    form.append(data: input.bytes(4), name: input.text(1), filename: filename, contentType: contentType)
    form.append(field: "second", value: input.text(5))

    guard let body = try? form.makeBody(), let runs = body.parts else { return 0 }
    var bytes: [UInt8] = []
    for run in runs {
        guard case .bytes(let chunk) = run else { finding("a file part in a form without files", input) }
        bytes += chunk
    }
    if Int64(bytes.count) != body.length {
        finding("length \(String(describing: body.length)) is not \(bytes.count)", input)
    }
    guard let boundary = boundaryParameter(form.contentType), boundary == form.boundary else {
        finding("Content-Type \(form.contentType) names another boundary than \(form.boundary)", input)
    }
    guard let parts = readParts(bytes, boundary: boundary), parts.count == 2 else {
        finding("the body does not read back as two parts", input)
    }
    if parts[0].content != input.bytes(4) { finding("the first part's content changed", input) }
    if parts[1].content != Array(input.text(5).utf8) { finding("the second part's content changed", input) }
    let expectedLines = 1 + (contentType == nil ? 0 : 1)
    if parts[0].head.count != expectedLines || parts[1].head.count != 1 {
        finding("part heads have extra lines: \(parts.map(\.head))", input)
    }
    return 0
}
