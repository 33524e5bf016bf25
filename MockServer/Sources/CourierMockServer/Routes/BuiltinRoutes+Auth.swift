import Foundation

extension BuiltinRoutes {
    /// `/basic-auth/{user}/{password}`: 200 for matching Basic credentials, else
    /// 401 with a `WWW-Authenticate` challenge.
    static func basicAuth(user: String, password: String, _ request: RecordedRequest) -> BuiltinAnswer {
        let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        guard request.header("Authorization") == expected else {
            return BuiltinAnswer(
                route: "/basic-auth/{user}/{password}",
                response: StubResponse(
                    status: 401, headers: [("WWW-Authenticate", "Basic realm=\"courier\"")]))
        }
        return BuiltinAnswer(
            route: "/basic-auth/{user}/{password}",
            response: .json(.object(["authenticated": .bool(true), "user": .string(user)])))
    }

    /// `/bearer`: 200 with the token for any `Authorization: Bearer …`, else 401.
    static func bearer(_ request: RecordedRequest) -> BuiltinAnswer {
        guard let value = request.header("Authorization"), value.hasPrefix("Bearer "), value.count > 7 else {
            return BuiltinAnswer(
                route: "/bearer",
                response: StubResponse(status: 401, headers: [("WWW-Authenticate", "Bearer")]))
        }
        return BuiltinAnswer(
            route: "/bearer",
            response: .json(
                .object(["authenticated": .bool(true), "token": .string(String(value.dropFirst(7)))])))
    }
}
