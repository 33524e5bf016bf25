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
