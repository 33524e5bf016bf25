import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns a resolved spec into a request head and body: the encoding step.
enum RequestBuilder {
    static func build(_ spec: EndpointSpec, environment: ServerEnvironment, _ encoding: ParameterEncoding)
        throws(CourierError) -> OutgoingRequest
    {
        let base = try spec.node.parsedBaseURL(for: environment)
        let route = spec.route.path.escaped
        try checkPath(route)
        var path = base.path
        let relative = route.hasPrefix("/") ? route.dropFirst() : Substring(route)
        if !relative.isEmpty {
            path += "/"
            path += relative
        } else if path.isEmpty {
            path = "/"
        }
        // The base URL's query, the parameters, then the endpoint's encoded
        // query, joined by "&" (appended in place: most calls have none).
        var query = base.query ?? ""
        join(&query, try encoding.encode(spec.query))
        if let encoded = spec.encodedQuery {
            try checkQuery(encoded)
            join(&query, encoded)
        }
        if !query.isEmpty {
            path += "?"
            path += query
        }

        var headers = spec.node.headers
        if !spec.headers.isEmpty { headers.setAll(spec.headers) }
        let (body, contentType) = try makeBody(spec.content, encoding)
        // A node's or endpoint's `Content-Type` wins over the body's own —
        // except a framed body's (a multipart form's, whose boundary the body
        // is cut by): any other value would make the upload unreadable
        // (XSYNetwork's bug).
        if let contentType, headers[.contentType] == nil || spec.content.isFramed {
            headers[.contentType] = try RequestHeadCheck.checkedValue(contentType, for: .contentType)
        }
        let head = HTTPRequest(
            method: spec.route.method, scheme: base.scheme, authority: base.authority, path: path,
            headerFields: headers
        )
        return OutgoingRequest(head: head, body: body)
    }

    private static func join(_ query: inout String, _ part: String) {
        guard !part.isEmpty else { return }
        if !query.isEmpty { query += "&" }
        query += part
    }

    private static func makeBody(_ content: Content, _ encoding: ParameterEncoding) throws(CourierError) -> (
        RequestBody?, String?
    ) {
        switch content.kind {
        case .none:
            return (nil, nil)
        case .form(let parameters):
            let text = try encoding.encode(parameters)
            return (RequestBody(bytes: Array(text.utf8)), "application/x-www-form-urlencoded")
        case .jsonParameters(let parameters):
            return (RequestBody(bytes: try parameters.jsonBytes()), "application/json")
        case .json(let encode):
            return (try json(encode), "application/json")
        case .raw(let bytes, let contentType):
            return (RequestBody(bytes: bytes), contentType)
        case .file(let url, let contentType):
            return (try RequestBody(file: url), contentType)
        case .stream(let body, let contentType):
            return (body, contentType)
        case .built(_, _, _, let make):
            return try make()
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
    /// query or a fragment; interpolated values are escaped already, and so
    /// is non-ASCII literal text (only ``RoutePath/init(escaped:)`` can bring
    /// a raw non-ASCII byte here).
    /// An encoded query may hold anything a query may, but no space, control
    /// or non-ASCII character, and no fragment.
    private static func checkQuery(_ query: String) throws(CourierError) {
        for byte in query.utf8 where byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "#") {
            throw CourierError(
                .invalidRequest, stage: .build,
                message:
                    "encoded query \"\(Redaction.standard.url("?" + query.prefix(200)).dropFirst())\" contains a space, a control or non-ASCII "
                    + "character, or '#'; percent-encode it")
        }
    }

    private static func checkPath(_ path: String) throws(CourierError) {
        for byte in path.utf8
        where byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "?") {
            throw CourierError(
                .invalidRequest, stage: .build,
                message: "route path \"\(path.prefix(200))\" contains a space, a control or non-ASCII "
                    + "character, '?' or '#'; put values in interpolations and parameters in the query")
        }
    }
}
