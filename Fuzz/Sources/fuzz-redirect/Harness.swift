import FuzzSupport
import HTTPTypes

@testable import CourierCore

// RedirectPolicy.next: the Location resolver every transport follows
// redirects with. Fields: 0 the Location value, 1 the current request's path,
// 2 a byte choosing the status, 3 a byte choosing the method and scheme.
//
// Checked beyond "no crash", for every redirect the policy follows:
// - the target is http or https, and never https → http;
// - authority and path can be sent as they are (no space, control byte or
//   non-ASCII byte), the path starts with "/" and has no fragment;
// - a hop to another origin keeps only the policy's safe headers, so the
//   Authorization, Cookie and interceptor headers of the original never leak;
// - 303 (and 301/302 after POST) drops the body; the visited list grows.

let statuses = [301, 302, 303, 307, 308, 300, 304]
let methods: [HTTPRequest.Method] = [.get, .post, .put, .head]
let policy = RedirectPolicy.follow

/// libFuzzer's entry point: one input; returns 0 (keep the input if new).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    let status = statuses[Int(input.byte(2)) % statuses.count]
    let method = methods[Int(input.byte(3)) % methods.count]
    let scheme = input.byte(3) & 0x80 == 0 ? "https" : "http"
    var path = input.text(1)
    if !path.hasPrefix("/") { path = "/" + path }

    var fields = HTTPFields()
    fields[.authorization] = "Bearer secret"
    fields[.cookie] = "session=secret"
    if let apiKey = HTTPField.Name("X-Api-Key") { fields[apiKey] = "secret" }
    fields[.accept] = "application/json"
    let head = HTTPRequest(
        method: method, scheme: scheme, authority: "api.example.com:8443", path: path, headerFields: fields)
    let request = OutgoingRequest(head: head, body: RequestBody(bytes: [1, 2, 3]))
    var responseFields = HTTPFields()
    responseFields.append(HTTPField(name: .location, value: input.text(0)))
    let response = RawResponse(head: HTTPResponse(status: .init(code: status), headerFields: responseFields))

    var visited: [String] = []
    let next: OutgoingRequest?
    do {
        next = try policy.next(after: response, for: request, visited: &visited)
    } catch {
        guard error.code == .redirectRefused else { finding("unexpected error code \(error)", input) }
        return 0
    }
    guard let next else { return 0 }
    let target = next.head
    guard let targetScheme = target.scheme, targetScheme == "http" || targetScheme == "https" else {
        finding("followed to scheme \(String(describing: target.scheme))", input)
    }
    if scheme == "https", targetScheme == "http" { finding("downgraded https to http", input) }
    guard let authority = target.authority, !authority.isEmpty, isHeadSafe(authority) else {
        finding("unsendable authority \(String(reflecting: target.authority))", input)
    }
    if authority.contains("@") || authority.contains("/") {
        finding("authority \(authority) carries userinfo or a path", input)
    }
    guard let targetPath = target.path, targetPath.hasPrefix("/"), isHeadSafe(targetPath),
        !targetPath.contains("#")
    else { finding("unsendable path \(String(reflecting: target.path))", input) }
    let sameOrigin = targetScheme == scheme && authority.lowercased() == "api.example.com:8443"
    if !sameOrigin {
        for field in target.headerFields where !policy.crossOriginHeaders.contains(field.name) {
            finding("cross-origin hop kept \(field.name)", input)
        }
    }
    if status == 303 || (method == .post && status < 303), next.body != nil {
        finding("\(status) after \(method) kept the body", input)
    }
    if visited.count != 2 { finding("visited \(visited)", input) }
    return 0
}
