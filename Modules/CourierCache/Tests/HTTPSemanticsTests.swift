import CourierCodable
import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// RFC 9111's subset, through the pipeline on a `TestClock`: freshness,
/// revalidation, `no-cache`, `must-revalidate`, `stale-while-revalidate`,
/// `Vary`, invalidation.
struct HTTPSemanticsTests {
    let user = Endpoint<User>(.get("users/7"), on: .api).cache(.http)

    /// Answers 304 to a request whose validator matches "v1", otherwise a fresh body.
    static func validating(control: String, validator: HTTPField = HTTPField(name: .eTag, value: #""v1""#))
        -> Origin
    {
        Origin { head, number in
            let conditional = head.headerFields[.ifNoneMatch] ?? head.headerFields[.ifModifiedSince]
            if conditional == validator.value {
                // The 304 names the representation it confirms (RFC 9110 §15.4.5).
                return .response(
                    status: 304,
                    headers: HTTPFields([HTTPField(name: .cacheControl, value: control), validator]))
            }
            return .json(
                #"{"id": 7, "name": "v\#(number)"}"#,
                headers: HTTPFields([HTTPField(name: .cacheControl, value: control), validator]))
        }
    }

    @Test func aFreshResponseAnswersUntilItsMaxAgeThenIsRevalidated() async throws {
        let clock = TestClock()
        let origin = Self.validating(control: "max-age=60")
        let client = makeClient(origin, cache: ResponseCache(clock: clock), clock: clock)
        #expect(try await client.send(user).name == "v1")
        clock.advance(by: .seconds(59))
        #expect(try await client.response(user).attempts == 0)
        clock.advance(by: .seconds(1))
        // Stale: asked with its validator; the 304 returns the stored body, refreshed.
        let reply = try await client.response(user)
        #expect(reply.model.name == "v1")
        #expect(reply.response?.cacheSource == .revalidated)
        #expect(reply.response?.statusCode == 200)
        #expect(origin.requests.last?.headerFields[.ifNoneMatch] == #""v1""#)
        clock.advance(by: .seconds(59))
        #expect(try await client.response(user).attempts == 0)
        #expect(origin.count == 2)
    }

    @Test func lastModifiedRevalidatesWithIfModifiedSince() async throws {
        let clock = TestClock()
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        let origin = Self.validating(
            control: "max-age=0", validator: HTTPField(name: .lastModified, value: date))
        let client = makeClient(origin, cache: ResponseCache(clock: clock), clock: clock)
        _ = try await client.send(user)
        #expect(try await client.response(user).response?.cacheSource == .revalidated)
        #expect(origin.requests.last?.headerFields[.ifModifiedSince] == date)
    }

    @Test func aStaleResponseWithoutValidatorsIsFetchedAgain() async throws {
        let clock = TestClock()
        let origin = Origin.versions(headers: [.cacheControl: "max-age=10"])
        let client = makeClient(origin, cache: ResponseCache(clock: clock), clock: clock)
        _ = try await client.send(user)
        clock.advance(by: .seconds(10))
        #expect(try await client.send(user).name == "v2")
        #expect(origin.requests.last?.headerFields[.ifNoneMatch] == nil)
    }

    @Test func noCacheRevalidatesEveryTime() async throws {
        let origin = Self.validating(control: "no-cache")
        let client = makeClient(origin, cache: ResponseCache())
        _ = try await client.send(user)
        for _ in 0..<3 { #expect(try await client.response(user).response?.cacheSource == .revalidated) }
        #expect(origin.count == 4)
    }

    @Test func aRequestThatSaysNoCacheRevalidates() async throws {
        let origin = Self.validating(control: "max-age=600")
        let client = makeClient(origin, cache: ResponseCache())
        _ = try await client.send(user)
        let asking = user.adding(headers: [.cacheControl: "no-cache"])
        #expect(try await client.response(asking).response?.cacheSource == .revalidated)
        #expect(origin.count == 2)
    }

    @Test func withoutExplicitFreshnessAResponseIsStaleAtOnce() async throws {
        // No max-age, no Expires: no heuristic freshness — revalidated on every use.
        let origin = Origin { head, number in
            head.headerFields[.ifNoneMatch] == #""v1""#
                ? .response(status: 304, headers: [.eTag: #""v1""#])
                : .json(#"{"id": 7, "name": "v\#(number)"}"#, headers: [.eTag: #""v1""#])
        }
        let client = makeClient(origin, cache: ResponseCache())
        _ = try await client.send(user)
        #expect(try await client.response(user).response?.cacheSource == .revalidated)
    }

    @Test func staleWhileRevalidateAnswersAndRevalidatesInTheBackground() async throws {
        let clock = TestClock()
        let origin = Self.validating(control: "max-age=10, stale-while-revalidate=60")
        let cache = ResponseCache(clock: clock)
        let client = makeClient(origin, cache: cache, clock: clock)
        _ = try await client.send(user)
        clock.advance(by: .seconds(30))
        let reply = try await client.response(user)
        #expect(reply.attempts == 0)
        #expect(reply.response?.cacheSource == .cache)
        await cache.settle()
        #expect(origin.count == 2)
        #expect(origin.requests.last?.headerFields[.ifNoneMatch] == #""v1""#)
        #expect(cache.statistics.revalidations == 1)
        // Past the grace period it must be asked first.
        clock.advance(by: .seconds(100))
        #expect(try await client.response(user).response?.cacheSource == .revalidated)
    }

    @Test func mustRevalidateForbidsServingStale() async throws {
        let clock = TestClock()
        let origin = Self.validating(control: "max-age=10, must-revalidate, stale-while-revalidate=60")
        let client = makeClient(origin, cache: ResponseCache(clock: clock), clock: clock)
        _ = try await client.send(user)
        clock.advance(by: .seconds(30))
        #expect(try await client.response(user).response?.cacheSource == .revalidated)
    }

    @Test func expiresAndAgeCount() async throws {
        let clock = TestClock()
        let now = HTTPDate.format(clock.date)
        let later = HTTPDate.format(clock.date.addingTimeInterval(100))
        let origin = Origin.versions(headers: [.date: now, .expires: later, .age: "40"])
        let client = makeClient(origin, cache: ResponseCache(clock: clock), clock: clock)
        _ = try await client.send(user)
        // Fresh for 100 s from its Date, 40 of which it spent elsewhere.
        clock.advance(by: .seconds(59))
        #expect(try await client.response(user).attempts == 0)
        clock.advance(by: .seconds(1))
        #expect(try await client.send(user).name == "v2")
    }

    @Test func aLongMaxAgeOutlivesTheDefaultExpiry() async throws {
        // The endpoint's expiry (five minutes by default) bounds how long an
        // entry is kept, never how long the server said it is fresh.
        let clock = TestClock()
        let origin = Origin.versions(headers: [.cacheControl: "max-age=3600"])
        let client = makeClient(origin, cache: ResponseCache(clock: clock), clock: clock)
        _ = try await client.send(user)
        clock.advance(by: .seconds(3_000))
        #expect(try await client.response(user).attempts == 0)
        clock.advance(by: .seconds(600))
        #expect(try await client.send(user).name == "v2")
    }

    @Test func varyKeepsVariantsApart() async throws {
        let origin = Origin { head, number in
            .json(
                #"{"id": 7, "name": "\#(head.headerFields[HTTPField.Name("X-Region")!] ?? "")\#(number)"}"#,
                headers: [.cacheControl: "max-age=600", .vary: "X-Region"])
        }
        let client = makeClient(origin, cache: ResponseCache())
        let europe = user.adding(headers: [HTTPField.Name("X-Region")!: "eu"])
        let asia = user.adding(headers: [HTTPField.Name("X-Region")!: "ap"])
        #expect(try await client.send(europe).name == "eu1")
        #expect(try await client.send(europe).name == "eu1")
        #expect(try await client.send(asia).name == "ap2")
        #expect(origin.count == 2)
    }

    @Test func varyStarIsNeverStored() async throws {
        let origin = Origin.versions(headers: [.cacheControl: "max-age=600", .vary: "*"])
        let cache = ResponseCache()
        let client = makeClient(origin, cache: cache)
        _ = try await client.send(user)
        #expect(cache.statistics.writes == 0)
    }

    @Test func aSuccessfulUnsafeRequestInvalidatesTheStoredRead() async throws {
        let origin = Origin.versions(headers: [.cacheControl: "max-age=600"])
        let client = makeClient(origin, cache: ResponseCache())
        _ = try await client.send(user)
        #expect(try await client.response(user).attempts == 0)
        var update = Endpoint<User>(.put("users/7"), on: .api, content: .json(["name": "Grace"])).cache(.http)
        update.envelope = .none
        _ = try await client.send(update)
        #expect(try await client.send(user).name == "v3")
    }

    @Test func onlyGetAndHeadAreStoredUnderHTTPRules() async throws {
        let origin = Origin.versions(headers: [.cacheControl: "max-age=600"])
        let cache = ResponseCache()
        let client = makeClient(origin, cache: cache)
        let search = Endpoint<User>(.post("search"), on: .api, content: .json(["q": "a"]))
        _ = try await client.send(search.cache(.http))
        #expect(cache.statistics.writes == 0)
        // An app-level mode caches a POST by its body, as CSAPIService does.
        _ = try await client.send(search.cache(.cancelNetwork))
        #expect(try await client.response(search.cache(.cancelNetwork)).attempts == 0)
    }
}
