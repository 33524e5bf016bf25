extension BuiltinRoutes {
    /// `/cookies`: the cookies the request carried, as `{"cookies": {name: value}}`.
    static func cookies(_ request: RecordedRequest) -> BuiltinAnswer {
        var cookies: [String: JSONValue] = [:]
        for field in request.headerValues("Cookie") {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmed
                guard !name.isEmpty, cookies[name] == nil else { continue }
                cookies[name] = .string(parts.count > 1 ? parts[1].trimmed : "")
            }
        }
        return BuiltinAnswer(route: "/cookies", response: .json(.object(["cookies": .object(cookies)])))
    }

    /// `/cookies/set?name=value…`: a 302 to `/cookies` that sets each
    /// pair (`Path=/`); `/cookies/delete?name…`: one that expires each name.
    /// A name or value that could not be sent in a header field gets 400.
    static func setCookies(_ request: RecordedRequest, deleting: Bool) -> BuiltinAnswer {
        let route = deleting ? "/cookies/delete" : "/cookies/set"
        var headers: [(name: String, value: String)] = [("Location", "/cookies")]
        for pair in request.query {
            guard isCookieText(pair.name), !pair.name.isEmpty, deleting || isCookieText(pair.value) else {
                return BuiltinAnswer(
                    route: route,
                    response: .json(
                        .object(["error": .string("a cookie name or value is not sendable")]), status: 400))
            }
            headers.append(
                deleting
                    ? (
                        "Set-Cookie",
                        "\(pair.name)=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/"
                    )
                    : ("Set-Cookie", "\(pair.name)=\(pair.value); Path=/"))
        }
        return BuiltinAnswer(route: route, response: StubResponse(status: 302, headers: headers))
    }

    /// Printable ASCII without `;`, `,`, `=`, quotes, backslash or spaces.
    private static func isCookieText(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: ";") && byte != UInt8(ascii: ",")
                && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
        }
    }
}
