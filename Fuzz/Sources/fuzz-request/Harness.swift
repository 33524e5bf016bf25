import FuzzSupport

@testable import CourierCore

// Request building: a node's base URL, a route with an interpolated value and
// a literal route, and query parameters, each from the fuzzer — as they would
// come from configuration or user input. Fields: 0 base URL, 1 path value,
// 2 literal route, 3 query key, 4 query value, 5 a byte choosing the encoding.
//
// Checked beyond "no crash", for every request that builds:
// - the authority and the path can be sent as they are (no space, control or
//   non-ASCII byte), the authority holds no userinfo, path or query, and the
//   path starts with "/" and has no fragment;
// - an interpolated value stays one segment: the path ends in
//   items/<value>/detail, <value> decodes back to the value's bytes and is
//   never "." or ".." (no climbing out of the route);
// - the query decodes back to the parameters that were given.

let encodings = [
    ParameterEncoding.default, ParameterEncoding(arrayStyle: .repeatKey),
    ParameterEncoding(arrayStyle: .indexed, boolStyle: .numeric, nullStyle: .emptyValue),
    ParameterEncoding(arrayStyle: .commaSeparated),
]

func checkHead(_ request: OutgoingRequest, _ input: FuzzInput) -> (path: Substring, query: Substring?) {
    guard let authority = request.head.authority, !authority.isEmpty, isHeadSafe(authority) else {
        finding("unsendable authority \(String(reflecting: request.head.authority))", input)
    }
    if authority.contains(where: { "@/?#".contains($0) }) {
        finding("authority \(authority) carries userinfo, a path, a query or a fragment", input)
    }
    guard let path = request.head.path, path.hasPrefix("/"), isHeadSafe(path), !path.contains("#") else {
        finding("unsendable path \(String(reflecting: request.head.path))", input)
    }
    let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    return (parts[0], parts.count > 1 ? parts[1] : nil)
}

/// libFuzzer's entry point: one input; returns 0 (keep the input if new).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    let node = Node("fuzz", baseURL: input.text(0))
    let value = input.text(1)
    let key = input.text(3)
    let queryValue = input.text(4)
    let encoding = encodings[Int(input.byte(5)) % encodings.count]
    let query: Parameters = key.isEmpty ? .empty : [key: .string(queryValue)]

    let interpolated = EndpointSpec(route: .get("items/\(value)/detail"), node: node, query: query)
    if let request = try? RequestBuilder.build(interpolated, environment: .production, encoding) {
        let (path, queryText) = checkHead(request, input)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 3, segments[segments.count - 3] == "items", segments.last == "detail" else {
            finding("the value changed the route's segments: \(path)", input)
        }
        let segment = segments[segments.count - 2]
        if segment == "." || segment == ".." { finding("the value became a dot segment", input) }
        if percentDecoded(segment) != Array(value.utf8) {
            finding("segment \(segment) does not decode to the value", input)
        }
        if !key.isEmpty {
            guard let queryText, let last = queryText.split(separator: "&").last else {
                finding("the query parameter is missing", input)
            }
            let pair = last.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, percentDecoded(pair[0]) == Array(key.utf8),
                percentDecoded(pair[1]) == Array(queryValue.utf8)
            else { finding("query \(queryText) does not decode to the parameter", input) }
        }
    }

    let literal = EndpointSpec(route: .get(RoutePath(stringLiteral: input.text(2))), node: node)
    if let request = try? RequestBuilder.build(literal, environment: .production, encoding) {
        _ = checkHead(request, input)
    }
    return 0
}
