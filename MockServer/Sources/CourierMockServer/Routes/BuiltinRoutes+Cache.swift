extension BuiltinRoutes {
    /// The `/cache` resource's validators; fixed so revalidation is testable.
    static let cacheETag = "\"courier-cache-v1\""
    static let cacheLastModified = "Wed, 21 Oct 2015 07:28:00 GMT"

    /// `/cache`: a JSON resource with `ETag` and `Last-Modified`; a matching
    /// `If-None-Match` or `If-Modified-Since` gets 304 without a body.
    static func cache(_ request: RecordedRequest) -> BuiltinAnswer {
        let validators = [
            ("ETag", cacheETag), ("Last-Modified", cacheLastModified), ("Cache-Control", "max-age=60"),
        ]
        let noneMatch = request.header("If-None-Match").map { value in
            value.split(separator: ",").contains { $0.trimmed == cacheETag || $0.trimmed == "*" }
        }
        let notModified = noneMatch ?? (request.header("If-Modified-Since") == cacheLastModified)
        if notModified {
            return BuiltinAnswer(route: "/cache", response: StubResponse(status: 304, headers: validators))
        }
        var response = StubResponse.json(echo(request))
        response.headers += validators
        return BuiltinAnswer(route: "/cache", response: response)
    }
}

extension Substring {
    var trimmed: String {
        var view = self
        while view.first == " " { view = view.dropFirst() }
        while view.last == " " { view = view.dropLast() }
        return String(view)
    }
}
