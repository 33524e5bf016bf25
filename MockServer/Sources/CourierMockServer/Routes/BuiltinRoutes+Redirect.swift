extension BuiltinRoutes {
    /// `/redirect/{n}`: 302 to `/redirect/{n-1}`, and at 1 to `/anything`.
    static func redirect(_ text: String) -> BuiltinAnswer? {
        guard let count = Int(text), (1...100).contains(count) else { return nil }
        let location = count == 1 ? "/anything" : "/redirect/\(count - 1)"
        return BuiltinAnswer(
            route: "/redirect/{n}", response: StubResponse(status: 302, headers: [("Location", location)]))
    }

    /// `/redirect-to?url=…&status=…`: a redirect to any URL (default status 302).
    static func redirectTo(_ request: RecordedRequest) -> BuiltinAnswer {
        guard let target = request.queryValue("url"), !target.isEmpty,
            !target.utf8.contains(where: { $0 == 13 || $0 == 10 })
        else {
            return BuiltinAnswer(
                route: "/redirect-to",
                response: .json(.object(["error": .string("url is required")]), status: 400))
        }
        let status =
            request.queryValue("status").flatMap(Int.init).flatMap { (300...399).contains($0) ? $0 : nil }
            ?? 302
        return BuiltinAnswer(
            route: "/redirect-to", response: StubResponse(status: status, headers: [("Location", target)]))
    }
}
