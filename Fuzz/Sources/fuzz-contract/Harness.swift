import CourierMockServer
import Foundation
import FuzzSupport

// courier-mock's contract-file parser, on whole documents. A body file next
// to the contracts folder (outside __files) holds a marker that must never
// be read.
//
// Checked beyond "no crash", for every document that parses:
// - no stub's body comes from outside the __files folder;
// - every response can be written as it is: a status of 100–999, header
//   names that are RFC 9110 tokens, header values without CR, LF or NUL,
//   delays that are not negative.

let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fuzz-contract-\(getpid())")
let files = root.appendingPathComponent("contracts/__files")
let marker = Array("OUTSIDE-THE-FILES-FOLDER".utf8)
let prepared: Void = {
    try? FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
    FileManager.default.createFile(
        atPath: files.appendingPathComponent("inside.txt").path, contents: Data("inside".utf8))
    FileManager.default.createFile(
        atPath: root.appendingPathComponent("contracts/secret.txt").path, contents: Data(marker))
}()

/// libFuzzer's entry point: one input; returns 0 (keep the input if new).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = prepared
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let input = FuzzInput(bytes)
    guard let stubs = try? ContractLoader.parse(bytes, file: "fuzz.json", filesDirectory: files) else {
        return 0
    }
    for stub in stubs {
        for response in stub.responses {
            if response.body == marker { finding("stub \(stub.id) read a file outside __files", input) }
            if !(100...999).contains(response.status) {
                finding("stub \(stub.id) has status \(response.status)", input)
            }
            expectWritableHeaders(response.headers, of: "stub \(stub.id)", input)
            switch response.delay {
            case .fixed(let milliseconds) where milliseconds < 0:
                finding("stub \(stub.id) has a negative delay", input)
            case .uniform(let lower, let upper, _) where lower < 0 || upper < lower:
                finding("stub \(stub.id) has delay bounds \(lower)…\(upper)", input)
            default: break
            }
        }
    }
    return 0
}
