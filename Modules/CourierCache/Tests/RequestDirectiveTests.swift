import CourierCodable
import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// The request's cache directives (RFC 9111 §5.2.1, §5.4): what the caller
/// asks of the stored response.
struct RequestDirectiveTests {
    let user = Endpoint<User>(.get("users/7"), on: .api).cache(.http)

    /// A client whose origin answers `max-age=100` (and `extra`), the
    /// response stored, and the clock `after` seconds later.
    static func stored(
        _ extra: String = "", after seconds: Int
    ) async throws -> (APIClient, Origin, TestClock) {
        let clock = RFC9111LetterTests.clock()
        let origin = RFC9111LetterTests.origin([("Cache-Control", "max-age=100" + extra)])
        let client = RFC9111LetterTests.client(origin, clock)
        _ = try await client.send(Endpoint<User>(.get("users/7"), on: .api).cache(.http))
        clock.advance(by: .seconds(seconds))
        return (client, origin, clock)
    }

    func asking(_ fields: HTTPFields) -> Endpoint<User> { user.adding(headers: fields) }

    @Test func pragmaNoCacheCountsOnlyWithoutCacheControl() async throws {
        let (client, origin, _) = try await Self.stored(after: 10)
        _ = try await client.send(asking([.init("Pragma")!: "no-cache"]))
        #expect(origin.count == 2)
        _ = try await client.send(asking([.init("Pragma")!: "no-cache", .cacheControl: "max-stale"]))
        #expect(origin.count == 2)
    }

    @Test func minFreshAsksForThatMuchFreshnessLeft() async throws {
        let (client, origin, _) = try await Self.stored(after: 50)
        _ = try await client.send(asking([.cacheControl: "min-fresh=40"]))
        #expect(origin.count == 1)
        _ = try await client.send(asking([.cacheControl: "min-fresh=60"]))
        #expect(origin.count == 2)
    }

    @Test func maxStaleTakesAStaleResponseUnlessItMustBeRevalidated() async throws {
        let (client, origin, _) = try await Self.stored(after: 130)
        _ = try await client.send(asking([.cacheControl: "max-stale=20"]))
        #expect(origin.count == 2)
        let (tolerant, tolerantOrigin, _) = try await Self.stored(after: 130)
        #expect(try await tolerant.response(asking([.cacheControl: "max-stale=40"])).attempts == 0)
        #expect(try await tolerant.response(asking([.cacheControl: "max-stale"])).attempts == 0)
        #expect(tolerantOrigin.count == 1)
        let (strict, strictOrigin, _) = try await Self.stored(", must-revalidate", after: 130)
        _ = try await strict.send(asking([.cacheControl: "max-stale"]))
        #expect(strictOrigin.count == 2)
    }

    @Test func onlyIfCachedNeverReachesTheNetwork() async throws {
        let (client, origin, _) = try await Self.stored(after: 10)
        let cachedOnly = asking([.cacheControl: "only-if-cached"])
        #expect(try await client.send(cachedOnly).name == "v1")
        let (stale, staleOrigin, _) = try await Self.stored(after: 500)
        do {
            _ = try await stale.send(cachedOnly)
            Issue.record("a stale response answered only-if-cached")
        } catch {
            #expect(error.code == .status)
            #expect(error.response?.statusCode == 504)
        }
        let other = Endpoint<User>(.get("users/8"), on: .api).cache(.http)
            .adding(headers: [.cacheControl: "only-if-cached"])
        await #expect(throws: CourierError.self) { try await client.send(other) }
        #expect(origin.count == 1)
        #expect(staleOrigin.count == 1)
    }
}
