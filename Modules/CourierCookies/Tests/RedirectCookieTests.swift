import CourierCookies
@_spi(Locking) @_spi(Transport) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// The pipeline's redirect loop applies the jar on every hop.
struct RedirectCookieTests {
    /// A scripted server: each URL's response, and every request's `Cookie`.
    final class Script: Sendable {
        let responses: [String: HTTPResponse]
        let sent = Locked<[(url: String, cookie: String?)]>([])

        init(_ responses: [String: HTTPResponse]) { self.responses = responses }

        func perform(_ request: OutgoingRequest) throws -> RawResponse {
            let head = request.head
            let url = "\(head.scheme ?? "")://\(head.authority ?? "")\(head.path ?? "")"
            sent.withLock { $0.append((url, head.headerFields[.cookie])) }
            guard let response = responses[url] else { throw TransportError(.other, "no script for \(url)") }
            return RawResponse(head: response)
        }
    }

    static func redirect(_ location: String, setting cookies: [String] = []) -> HTTPResponse {
        var fields = HTTPFields([HTTPField(name: .location, value: location)])
        for cookie in cookies { fields.append(HTTPField(name: .setCookie, value: cookie)) }
        return HTTPResponse(status: .found, headerFields: fields)
    }

    @Test func aCookieSetByARedirectReachesItsTargetAndNoOtherOrigin() async throws {
        let script = Script([
            "https://a.example/login": Self.redirect("/home", setting: ["sid=42; Path=/"]),
            "https://a.example/home": Self.redirect("https://b.example/elsewhere", setting: ["seen=1"]),
            "https://b.example/elsewhere": HTTPResponse(status: .ok),
        ])
        let jar = CookieJar()
        var request = OutgoingRequest(head: HTTPRequestFixture.get("https://a.example/login"))
        request.head.headerFields[.cookie] = "mine=1"
        let response = try await RedirectPolicy.follow.exchange(request, options: .init(), cookies: jar) {
            try script.perform($0)
        }
        #expect(response.statusCode == 200)
        let sent = script.sent.withLock { $0 }
        #expect(
            sent.map(\.url) == [
                "https://a.example/login", "https://a.example/home", "https://b.example/elsewhere",
            ])
        // The caller's own cookie, then the jar's; the cross-origin hop drops
        // the caller's field, and the jar has nothing for b.example.
        #expect(sent.map(\.cookie) == ["mine=1", "mine=1; sid=42", nil])
        #expect(Set(jar.cookies.map(\.name)) == ["sid", "seen"])
    }

    @Test func withoutAJarNothingIsStoredOrSent() async throws {
        let script = Script([
            "https://a.example/login": Self.redirect("/home", setting: ["sid=42; Path=/"]),
            "https://a.example/home": HTTPResponse(status: .ok),
        ])
        _ = try await RedirectPolicy.follow.exchange(
            OutgoingRequest(head: HTTPRequestFixture.get("https://a.example/login")), options: .init()
        ) { try script.perform($0) }
        #expect(script.sent.withLock { $0 }.map(\.cookie) == [nil, nil])
    }
}
