import CourierCore
import HTTPTypes
import Testing

/// RedirectPolicy's Location resolver on its own (the transports' behaviour
/// end to end is in the conformance suite). The refused hosts were found by
/// fuzz-redirect.
struct RedirectPolicyTests {
    private func next(_ location: String, status: Int = 302) throws(TransportError) -> OutgoingRequest? {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer secret"
        let request = OutgoingRequest(
            head: HTTPRequest(
                method: .get, scheme: "https", authority: "api.example.com", path: "/a/b",
                headerFields: fields))
        var headers = HTTPFields()
        headers[.location] = location
        let response = RawResponse(head: HTTPResponse(status: .init(code: status), headerFields: headers))
        var visited: [String] = []
        return try RedirectPolicy.follow.next(after: response, for: request, visited: &visited)
    }

    @Test func refusalsNeverCarryTheSecretsOfTheirURLs() throws {
        // A loop back to a URL with a token in its query, and an invalid
        // target with a password in it: the messages keep the shape, not the secrets.
        let request = OutgoingRequest(
            head: HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/loop"))
        var headers = HTTPFields()
        headers[.location] = "/loop?page=2&access_token=s3cr3t-t0ken"
        let response = RawResponse(head: HTTPResponse(status: .found, headerFields: headers))
        var visited = ["https://api.example.com/loop?page=2&access_token=s3cr3t-t0ken"]
        let loop = #expect(throws: TransportError.self) {
            try RedirectPolicy.follow.next(after: response, for: request, visited: &visited)
        }
        #expect(loop?.message == "redirect loop at https://api.example.com/loop?page=2&access_token=***")
        let invalid = #expect(throws: TransportError.self) {
            try next("https://user:hunter2@a%20b/?sig=abc#top")
        }
        #expect(invalid?.message == "invalid redirect target https://***@a%20b/?sig=***#top")
    }

    @Test func relativeAndAbsoluteTargetsResolve() throws {
        let relative = try #require(try next("../c?q=1"))
        #expect(relative.head.authority == "api.example.com")
        #expect(relative.head.path == "/c?q=1")
        #expect(relative.head.headerFields[.authorization] == "Bearer secret")
        let other = try #require(try next("https://other.example:8443/x#fragment"))
        #expect(other.head.authority == "other.example:8443")
        #expect(other.head.path == "/x")
        #expect(other.head.headerFields[.authorization] == nil)
        let ipv6 = try #require(try next("https://[::1]:9/v6"))
        #expect(ipv6.head.authority == "[::1]:9")
    }

    @Test(arguments: [
        "//api.exampl\u{FFFD}.com/same",  // a non-ASCII host went out as raw UTF-8
        "https://caf\u{E9}.example/",
        "https://a%0D%0Ab.example/",  // a percent-escape decoded into the authority
        "https://a%20b/", "https:///nohost", "ftp://files.example/",
    ])
    func unsendableTargetsAreRefused(location: String) {
        do {
            let followed = try next(location)
            Issue.record("followed \(location) to \(String(describing: followed?.head.authority))")
        } catch {
            #expect(error.code == .redirectRefused)
        }
    }
}

/// What a hop keeps, by RFC 9110 §15.4: a 307/308 keeps the method, the body
/// and the body's own fields on every hop, to any origin; a 303, and a
/// 301/302 answering a POST, become a GET without them; a hop to another
/// origin drops every credential field the model knows, and whatever else
/// is not on the safe list.
struct RedirectHopTests {
    static let compressed: [UInt8] = Array(repeating: 0x1f, count: 40)

    static func post(_ extra: HTTPFields = [:]) -> OutgoingRequest {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.contentEncoding] = "gzip"
        fields[.contentLength] = "\(compressed.count)"
        fields[.contentLanguage] = "en"
        fields[HTTPField.Name("Content-Digest") ?? .contentType] = "sha-256=:abc=:"
        fields[.authorization] = "Bearer secret"
        fields[HTTPField.Name("X-API-Key") ?? .authorization] = "key-a"
        fields[.accept] = "application/json"
        fields.append(contentsOf: extra)
        return OutgoingRequest(
            head: HTTPRequest(
                method: .post, scheme: "https", authority: "a.example", path: "/upload", headerFields: fields),
            body: RequestBody(bytes: compressed))
    }

    static func hop(_ status: Int, to location: String, _ request: OutgoingRequest = post()) throws
        -> OutgoingRequest
    {
        var fields = HTTPFields()
        fields[.location] = location
        let response = RawResponse(head: HTTPResponse(status: .init(code: status), headerFields: fields))
        var visited: [String] = []
        return try #require(try RedirectPolicy.follow.next(after: response, for: request, visited: &visited))
    }

    static let contentNames = [
        "Content-Type", "Content-Encoding", "Content-Length", "Content-Language",
        "Content-Digest",
    ]

    @Test(arguments: [307, 308], ["https://a.example/moved", "https://b.example/moved"])
    func aMethodKeepingHopKeepsTheBodyAndItsFields(status: Int, location: String) throws {
        let next = try Self.hop(status, to: location)
        #expect(next.head.method == .post)
        #expect(
            next.body?.parts?.first.flatMap { if case .bytes(let b) = $0 { b } else { nil } }
                == Self.compressed)
        for name in Self.contentNames {
            let field = try #require(HTTPField.Name(name))
            #expect(
                next.head.headerFields[field] == Self.post().head.headerFields[field],
                "\(status) \(location): \(name)")
        }
        let crossOrigin = location.contains("b.example")
        #expect((next.head.headerFields[.authorization] == nil) == crossOrigin)
        #expect((next.head.headerFields[HTTPField.Name("X-API-Key")!] == nil) == crossOrigin)
        #expect(next.head.headerFields[.accept] == "application/json")
    }

    @Test(arguments: [(301, "POST"), (302, "POST"), (303, "POST"), (303, "PUT")], [false, true])
    func aHopThatBecomesAGetDropsTheBodyAndItsFields(redirect: (Int, String), crossOrigin: Bool) throws {
        var request = Self.post()
        request.head.method = HTTPRequest.Method(redirect.1)!
        let next = try Self.hop(redirect.0, to: crossOrigin ? "https://b.example/r" : "/r", request)
        #expect(next.head.method == .get)
        #expect(next.body == nil)
        for name in Self.contentNames {
            #expect(next.head.headerFields[HTTPField.Name(name)!] == nil, "\(redirect): \(name) kept")
        }
    }

    @Test func aCrossOriginHopDropsEveryCredentialFieldTheModelKnows() throws {
        var extra = HTTPFields()
        let names = [
            "Authorization", "Proxy-Authorization", "Cookie", "X-API-Key", "X-Auth-Token", "API-Key",
            "X-Amz-Security-Token", "x_api_key",
        ].compactMap { HTTPField.Name($0) }
        for name in names { extra[name] = "secret" }
        let next = try Self.hop(307, to: "https://b.example/r", Self.post(extra))
        let kept = next.head.headerFields.filter { names.contains($0.name) }
        #expect(kept.isEmpty, "kept \(kept.map(\.name))")
    }

    @Test func httpsToHTTPIsRefusedUnlessAllowed() throws {
        var fields = HTTPFields()
        fields[.location] = "http://a.example/plain"
        let response = RawResponse(head: HTTPResponse(status: .found, headerFields: fields))
        let request = OutgoingRequest(
            head: HTTPRequest(method: .get, scheme: "https", authority: "a.example", path: "/"))
        var visited: [String] = []
        let refused = #expect(throws: TransportError.self) {
            try RedirectPolicy.follow.next(after: response, for: request, visited: &visited)
        }
        #expect(refused?.code == .redirectRefused)
        #expect(refused?.message == "redirect from https to http refused")
        visited = []
        let allowed = try RedirectPolicy(allowsDowngrade: true).next(
            after: response, for: request, visited: &visited)
        #expect(allowed?.head.scheme == "http")
    }
}
