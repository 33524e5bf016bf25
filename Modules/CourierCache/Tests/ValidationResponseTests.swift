import CourierCodable
import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// A 304 updates the stored response only when it is about the same
/// representation (RFC 9111 §4.3.4); otherwise the request goes again,
/// unconditionally.
struct ValidationResponseTests {
    let user = Endpoint<User>(.get("users/7"), on: .api).cache(.http)

    /// `"v1"`-tagged `v<n>` bodies; a conditional request gets a 304 with `notModifiedTag`.
    static func origin(notModifiedTag: String?) -> Origin {
        Origin { head, number in
            var fields: HTTPFields = [.date: RFC9111LetterTests.now, .cacheControl: "max-age=60"]
            if head.headerFields[.ifNoneMatch] != nil {
                if let notModifiedTag { fields[.eTag] = notModifiedTag }
                return .status(304, headers: fields)
            }
            fields[.eTag] = "\"v\(number)\""
            return .json(#"{"id": 7, "name": "v\#(number)"}"#, headers: fields)
        }
    }

    @Test(arguments: ["\"v1\"", "W/\"v1\"", nil])
    func aMatching304UpdatesTheStoredResponse(tag: String?) async throws {
        let clock = RFC9111LetterTests.clock()
        let origin = Self.origin(notModifiedTag: tag)
        let client = RFC9111LetterTests.client(origin, clock)
        _ = try await client.send(user)
        clock.advance(by: .seconds(61))
        let revalidated = try await client.response(user)
        #expect(revalidated.model.name == "v1")
        #expect(revalidated.response?.cacheSource == .revalidated)
        #expect(origin.count == 2)
    }

    @Test(arguments: ["\"v9\"", "W/\"v9\""])
    func a304ForAnotherRepresentationIsNotUsed(tag: String) async throws {
        let clock = RFC9111LetterTests.clock()
        let origin = Self.origin(notModifiedTag: tag)
        let client = RFC9111LetterTests.client(origin, clock)
        _ = try await client.send(user)
        clock.advance(by: .seconds(61))
        #expect(try await client.send(user).name == "v3")
        #expect(origin.count == 3)
        #expect(origin.requests[1].headerFields[.ifNoneMatch] == "\"v1\"")
        #expect(origin.requests[2].headerFields[.ifNoneMatch] == nil)
    }
}
