import Foundation
import FuzzSupport

@testable import CourierMockServer

// courier-mock's OpenAPI reading, checking and answering, on whole
// documents (YAML or JSON; a sibling file other.yaml holds schemas they may
// refer to). For every document that reads, each operation is called with a
// request made from its template, and answered.
//
// Checked beyond "no crash" and "no hang" (libFuzzer's -timeout):
// - a refusal's status is 400, 401, 405 or 415, and every finding's pointer
//   is empty or starts with "/";
// - every answer can be written as it is: a status of 100–599, header names
//   that are RFC 9110 tokens, header values without CR, LF or NUL.

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fuzz-openapi-\(getpid())")
let document = folder.appendingPathComponent("api.yaml")
let prepared: Void = {
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let sibling = """
        Pet: {type: object, required: [id], properties: {id: {type: integer}, name: {type: string, pattern: "^[a-z]{3}$"}}}
        Loop: {anyOf: [{$ref: "#/Loop"}, {$ref: "#/Loop"}]}
        """
    FileManager.default.createFile(
        atPath: folder.appendingPathComponent("other.yaml").path, contents: Data(sibling.utf8))
}()

/// libFuzzer's entry point: one input; returns 0 (keep the input if new).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = prepared
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let input = FuzzInput(bytes)
    guard FileManager.default.createFile(atPath: document.path, contents: Data(bytes)),
        let spec = try? OpenAPISpec(contentsOf: document)
    else { return 0 }
    let validator = SpecRequestValidator(spec: spec)
    let responder = SpecResponder(spec: spec, seed: 7)
    for operation in spec.operations {
        var path = ""
        for segment in operation.template.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        {
            path += "/" + (segment.hasPrefix("{") ? "1" : String(segment))
        }
        let request = RecordedRequest(
            method: operation.method.uppercased(), uri: path + "?limit=1&tags=a,b",
            headers: [
                .init(name: "Content-Type", value: "application/json"),
                .init(name: "Prefer", value: "code=200"),
            ],
            body: Array(#"{"id": 1, "name": "rex"}"#.utf8))
        let check = validator.check(request)
        if let status = check.refusalStatus, ![400, 401, 405, 415].contains(status) {
            finding("\(operation.displayName): refused with \(status)", input)
        }
        for item in check.findings where !item.pointer.isEmpty && !item.pointer.hasPrefix("/") {
            finding("\(operation.displayName): finding pointer \(String(reflecting: item.pointer))", input)
        }
        guard case .success(let answer) = responder.answer(operation, request) else { continue }
        if !(100...599).contains(answer.status) {
            finding("\(operation.displayName): status \(answer.status)", input)
        }
        expectWritableHeaders(answer.headers, of: "the answer of \(operation.displayName)", input)
    }
    return 0
}
