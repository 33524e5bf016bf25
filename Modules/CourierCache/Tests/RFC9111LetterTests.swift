import CourierCodable
import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// RFC 9111 to the letter where a public cache test suite found Courier
/// lenient: invalid dates, list-valued `Age`, a generated `Age`, unsafe
/// extension methods, partial responses, hop-by-hop authentication fields.
struct RFC9111LetterTests {
    let user = Endpoint<User>(.get("users/7"), on: .api).cache(.http)
    static let now = "Sun, 06 Nov 1994 08:49:37 GMT"

    /// A body the n-th time, with these fields (and `Date: now`).
    static func origin(_ fields: [(String, String)], status: Int = 200) -> Origin {
        Origin { _, number in
            var headers = HTTPFields()
            headers.append(HTTPField(name: .date, value: now))
            for (name, value) in fields {
                if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
            }
            return .json(#"{"id": 7, "name": "v\#(number)"}"#, status: status, headers: headers)
        }
    }

    static func client(_ origin: Origin, _ clock: TestClock) -> APIClient {
        makeClient(origin, cache: ResponseCache(clock: clock), clock: clock)
    }

    /// A clock at the responses' `Date`.
    static func clock() -> TestClock {
        TestClock(startDate: HTTPDate.parse(now) ?? Date(timeIntervalSince1970: 0))
    }

    @Test func onlyTheThreeFormsOfRFC9110AreDates() throws {
        let date = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == date)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == date)
        #expect(HTTPDate.parse("Sun Nov 16 08:49:37 1994") == date.addingTimeInterval(10 * 86_400))
        #expect(HTTPDate.format(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        let invalid = [
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37 +0000", "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun 06 Nov 1994 08:49:37 GMT", "Sun,  06 Nov 1994 08:49:37 GMT", "Sun, 06-Nov-1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "0", "",
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sunday, 06 Nov 94 08:49:37 GMT", "Sun Nov 6 08:49:37 1994",
        ]
        for text in invalid { #expect(HTTPDate.parse(text) == nil, "\(text)") }
    }

    @Test(arguments: [
        ["Sun, 06 Nov 1994 09:49:37 UTC"], ["Sun, 06 Nov 94 09:49:37 GMT"], ["Sun 06 Nov 1994 09:49:37 GMT"],
        ["Sun, 06 Nov 1994 9:49:37 GMT"], ["Sun, 06-Nov-1994 09:49:37 GMT"],
        ["Sun, 06 Nov 1994 09:49:37 GMT", "Sun, 06 Nov 1994 09:49:37 GMT"],
    ])
    func anInvalidExpiresIsInThePast(expires: [String]) async throws {
        let clock = Self.clock()
        let origin = Self.origin(expires.map { ("Expires", $0) })
        let client = Self.client(origin, clock)
        _ = try await client.send(user)
        _ = try await client.send(user)
        #expect(origin.count == 2, "\(expires)")
        // The same hour in IMF-fixdate is fresh.
        let valid = Self.origin([("Expires", "Sun, 06 Nov 1994 09:49:37 GMT")])
        let fresh = Self.client(valid, clock)
        _ = try await fresh.send(user)
        #expect(try await fresh.response(user).attempts == 0)
    }

    @Test(arguments: [[("Age", "7200, 0")], [("Age", "7200"), ("Age", "0")]])
    func aListValuedAgeCountsByItsFirstMember(ages: [(String, String)]) async throws {
        let clock = Self.clock()
        let origin = Self.origin([("Cache-Control", "max-age=3600")] + ages)
        let client = Self.client(origin, clock)
        _ = try await client.send(user)
        _ = try await client.send(user)
        #expect(origin.count == 2)
    }

    @Test func aStoredResponseCarriesTheAgeTheCacheComputes() async throws {
        let clock = Self.clock()
        let origin = Self.origin([("Cache-Control", "max-age=3600"), ("Age", "100")])
        let client = Self.client(origin, clock)
        _ = try await client.send(user)
        clock.advance(by: .seconds(30))
        let reply = try await client.response(user)
        #expect(reply.attempts == 0)
        #expect(reply.response?.headerFields[values: .age] == ["130"])
    }

    @Test func anExtensionMethodInvalidatesLikeAnyUnsafeOne() async throws {
        let clock = Self.clock()
        let origin = Self.origin([("Cache-Control", "max-age=3600")])
        let client = Self.client(origin, clock)
        _ = try await client.send(user)
        let search = try #require(HTTPRequest.Method("M-SEARCH"))
        _ = try await client.send(Endpoint<RawResponse>(Route(search, "users/7"), on: .api).cache(.http))
        _ = try await client.send(user)
        #expect(origin.requests.map(\.method.rawValue) == ["GET", "M-SEARCH", "GET"])
    }

    @Test func aPartialResponseNeverAnswersAPlainGet() async throws {
        let clock = Self.clock()
        let origin = Self.origin(
            [("Cache-Control", "max-age=3600"), ("Content-Range", "bytes 0-4/100")], status: 206)
        let client = Self.client(origin, clock)
        let ranged = Endpoint<RawResponse>(.get("users/7"), on: .api, headers: [.range: "bytes=-5"])
            .cache(.http)
        _ = try await client.send(ranged)
        _ = try await client.send(Endpoint<RawResponse>(.get("users/7"), on: .api).cache(.http))
        #expect(origin.count == 2)
    }

    @Test func proxyAuthenticationInfoIsNeverStored() async throws {
        let clock = Self.clock()
        let origin = Self.origin([
            ("Cache-Control", "max-age=3600"), ("Proxy-Authentication-Info", "nextnonce=x"),
        ])
        let client = Self.client(origin, clock)
        _ = try await client.send(user)
        let reply = try await client.response(user)
        #expect(reply.attempts == 0)
        let name = try #require(HTTPField.Name("Proxy-Authentication-Info"))
        #expect(reply.response?.headerFields[name] == nil)
    }
}
