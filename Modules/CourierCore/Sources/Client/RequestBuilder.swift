import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns a resolved spec into a request head and body: the encoding step.
struct RequestBuilder {
    let spec: EndpointSpec
    let environment: ServerEnvironment
    let encoding: ParameterEncoding

    func build() throws(CourierError) -> OutgoingRequest {
        let base = try spec.node.baseURL(for: environment)
        guard let components = URLComponents(string: base),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            throw CourierError(
                .invalidRequest, stage: .build,
                message:
                    "node \(spec.node.name) has an invalid base URL \"\(base)\" (need http:// or https:// and a host)"
            )
        }
        let route = spec.route.path.escaped
        try Self.checkPath(route)
        var path = components.percentEncodedPath
        if path.hasSuffix("/") { path.removeLast() }
        let relative = route.hasPrefix("/") ? String(route.dropFirst()) : route
        path += relative.isEmpty ? (path.isEmpty ? "/" : "") : "/" + relative

        var queryParts: [String] = []
        if let baseQuery = components.percentEncodedQuery, !baseQuery.isEmpty { queryParts.append(baseQuery) }
        let query = try encoding.encode(spec.query)
        if !query.isEmpty { queryParts.append(query) }
        if !queryParts.isEmpty { path += "?" + queryParts.joined(separator: "&") }

        var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = components.port { authority += ":\(port)" }

        var headers = spec.node.headers
        headers.setAll(spec.headers)
        let (body, contentType) = try makeBody()
        if let contentType, headers[.contentType] == nil { headers[.contentType] = contentType }
        let head = HTTPRequest(
            method: spec.route.method, scheme: scheme, authority: authority, path: path, headerFields: headers
        )
        return OutgoingRequest(head: head, body: body)
    }

    private func makeBody() throws(CourierError) -> (RequestBody?, String?) {
        switch spec.content.kind {
        case .none:
            return (nil, nil)
        case .form(let parameters):
            let text = try encoding.encode(parameters)
            return (RequestBody(bytes: Array(text.utf8)), "application/x-www-form-urlencoded")
        case .jsonParameters(let parameters):
            return (RequestBody(bytes: try parameters.jsonBytes()), "application/json")
        case .json(let encode):
            return (try Self.json(encode), "application/json")
        case .raw(let bytes, let contentType):
            return (RequestBody(bytes: bytes), contentType)
        case .file(let url, let contentType):
            return (try RequestBody(file: url), contentType)
        case .multipart(let form):
            return (try form.makeBody(), form.contentType)
        case .stream(let body, let contentType):
            return (body, contentType)
        }
    }

    private static func json(_ encode: () throws -> [UInt8]) throws(CourierError) -> RequestBody {
        do {
            return RequestBody(bytes: try encode())
        } catch {
            throw CourierError(
                .invalidRequest, stage: .build, message: "the JSON body could not be encoded: \(error)",
                underlying: error)
        }
    }

    /// Literal route text must not smuggle in spaces, control characters, a
    /// query or a fragment; interpolated values are escaped already.
    private static func checkPath(_ path: String) throws(CourierError) {
        for byte in path.utf8
        where byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "?") {
            throw CourierError(
                .invalidRequest, stage: .build,
                message: "route path \"\(path)\" contains a space, control character, '?' or '#'; "
                    + "put values in interpolations and parameters in the query")
        }
    }
}
