import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// The cache's rules as pure functions: directives, freshness, the read
/// modes' decision table, keys.
struct CacheRulesTests {
    @Test(arguments: [
        ("max-age=60", CacheControl.expect(maxAge: 60)),
        ("MAX-AGE=60, Public", CacheControl.expect(isPublic: true, maxAge: 60)),
        (#"private="Set-Cookie", no-cache"#, CacheControl.expect(noCache: true, isPrivate: true)),
        (#"no-store, x-ext="a,b", s-maxage=5"#, CacheControl.expect(noStore: true, sharedMaxAge: 5)),
        ("max-age=soon", CacheControl.expect(hasInvalidAge: true)),
        ("max-age=99999999999999", CacheControl.expect(maxAge: Int(Int32.max))),
        ("must-revalidate,stale-while-revalidate=30", CacheControl.expect(mustRevalidate: true, swr: 30)),
        ("", CacheControl.expect()),
    ])
    func directivesParse(value: String, expected: CacheControl) {
        #expect(CacheControl([.cacheControl: value]) == expected)
    }

    @Test func directivesFromSeveralFieldsAddUp() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .cacheControl, value: "max-age=10"))
        fields.append(HTTPField(name: .cacheControl, value: "no-cache"))
        let control = CacheControl(fields)
        #expect(control.maxAge == 10 && control.noCache)
    }

    @Test func freshnessFollowsTheRFC() {
        let stored = Date(timeIntervalSince1970: 1_000_000)
        func state(
            _ fields: HTTPFields, after seconds: Double, request: HTTPFields = [:], shared: Bool = false
        )
            -> StoredState
        {
            let entry = CacheEntry(
                status: 200, headerFields: fields, body: [], storedAt: stored, expiresAt: nil)
            return Freshness.state(
                of: entry, request: CacheControl(request), now: stored.addingTimeInterval(seconds),
                shared: shared)
        }
        #expect(state([.cacheControl: "max-age=60"], after: 59) == .fresh)
        #expect(state([.cacheControl: "max-age=60"], after: 60) == .stale)
        #expect(state([.cacheControl: "max-age=60, s-maxage=5"], after: 10) == .fresh)
        #expect(state([.cacheControl: "max-age=60, s-maxage=5"], after: 10, shared: true) == .stale)
        #expect(
            state([.cacheControl: "max-age=60"], after: 10, request: [.cacheControl: "max-age=5"]) == .stale)
        #expect(state([.cacheControl: "max-age=60, no-cache"], after: 0) == .stale)
        #expect(state([.cacheControl: "max-age=10, stale-while-revalidate=20"], after: 29) == .staleServable)
        #expect(state([.cacheControl: "max-age=10, stale-while-revalidate=20"], after: 30) == .stale)
        #expect(state([.expires: "0"], after: 0) == .stale)
        #expect(state([:], after: 0) == .stale)
        // The Date and Age the response came with count against it.
        let date = HTTPDate.format(stored.addingTimeInterval(-30))
        #expect(state([.cacheControl: "max-age=60", .date: date], after: 29) == .fresh)
        #expect(state([.cacheControl: "max-age=60", .date: date], after: 30) == .stale)
        #expect(state([.cacheControl: "max-age=60", .age: "50"], after: 10) == .stale)
    }

    @Test(arguments: [
        // mode, role, stored, can revalidate → action
        (
            CacheReadMode.none, CacheRole.everyDelivery, StoredState.fresh, false,
            CacheReadDecision.Action.network(revalidate: false)
        ),
        (.cancelNetwork, .everyDelivery, .absent, false, .network(revalidate: false)),
        (.cancelNetwork, .lastDelivery, .fresh, false, .answer(refresh: false)),
        (.http, .lastDelivery, .fresh, true, .answer(refresh: false)),
        (.http, .lastDelivery, .stale, true, .network(revalidate: true)),
        (.http, .lastDelivery, .stale, false, .network(revalidate: false)),
        (.http, .lastDelivery, .staleServable, true, .answer(refresh: true)),
        (.alsoNetwork, .lastDelivery, .fresh, false, .answer(refresh: true)),
        (.alsoNetwork, .everyDelivery, .absent, false, .network(revalidate: false)),
        (.alsoNetworkWithCallback, .everyDelivery, .fresh, false, .deliverFirst(revalidate: false)),
        (.alsoNetworkWithCallback, .everyDelivery, .fresh, true, .deliverFirst(revalidate: true)),
        (.alsoNetworkWithCallback, .lastDelivery, .fresh, true, .network(revalidate: true)),
        (.alsoNetworkWithCallback, .everyDelivery, .stale, true, .network(revalidate: true)),
        (.cancelNetwork, .backgroundRefresh, .fresh, true, .network(revalidate: true)),
        (.alsoNetwork, .backgroundRefresh, .fresh, false, .network(revalidate: false)),
    ])
    func readModesDecide(
        mode: CacheReadMode, role: CacheRole, stored: StoredState, canRevalidate: Bool,
        expected: CacheReadDecision.Action
    ) {
        #expect(
            CacheReadDecision.decide(mode: mode, role: role, stored: stored, canRevalidate: canRevalidate)
                == expected)
    }

    @Test func keysNormaliseTheURLAndNeverHoldIt() throws {
        func key(
            _ url: String, _ rule: CacheKeyRule = .standard, headers: HTTPFields = [:], body: [UInt8]? = nil
        )
            throws -> CacheKey
        {
            var head = HTTPRequest(method: body == nil ? .get : .post, url: try #require(URL(string: url)))
            head.headerFields = headers
            let request = OutgoingRequest(head: head, body: body.map { RequestBody(bytes: $0) })
            return try #require(
                CacheKeyBuilder.key(for: request, parameters: nil, rule: rule, credential: nil))
        }
        let base = try key("https://API.example.com:443/v1/items?b=2&a=1&token=secret")
        #expect(base == (try key("https://api.example.com/v1/items?a=1&b=2&token=secret")))
        #expect(
            base.digest.count == 64 && !base.digest.contains("secret")
                && !base.description.contains("example"))
        #expect(base != (try key("https://api.example.com/v1/items?a=1&b=3&token=secret")))
        // Ignored parameters leave the key.
        let ignoring = CacheKeyRule.ignoring(["ts", "nonce"])
        #expect(
            (try key("https://api.example.com/v1/items?a=1&ts=100&nonce=x", ignoring))
                == (try key("https://api.example.com/v1/items?ts=200&a=1", ignoring)))
        // Negotiation, bodies and extras are part of it.
        #expect(
            base
                != (try key(
                    "https://api.example.com/v1/items?a=1&b=2&token=secret", headers: [.accept: "text/csv"])))
        #expect(
            (try key("https://a.test/search", body: [1])) != (try key("https://a.test/search", body: [2])))
        #expect(
            base
                != (try key(
                    "https://api.example.com/v1/items?a=1&b=2&token=secret",
                    CacheKeyRule.standard.adding { "user 7" })))
        // A custom key is hashed too, and still distinguishes what it returns.
        let custom = CacheKeyRule.custom { $0.head.path ?? "" }
        let customKey = try key("https://a.test/items?x=1", custom)
        #expect(customKey.digest.count == 64 && customKey.digest != "/items?x=1")
        #expect(customKey == (try key("https://b.test/items?x=1", custom)))
    }

    @Test func keysReadBackFromTheirDigest() {
        let key = CacheKey(hashing: "GET https://a.test/items")
        #expect(CacheKey(digest: key.digest) == key)
        #expect(CacheKey(digest: key.digest.uppercased()) == key)
        #expect(CacheKey(digest: "not a digest") == nil)
        #expect(CacheKey(digest: String(repeating: "g", count: 64)) == nil)
    }

    @Test func ignoredBodyParametersLeaveTheKey() throws {
        let head = HTTPRequest(method: .post, url: try #require(URL(string: "https://a.test/search")))
        func key(_ parameters: Parameters) -> CacheKey? {
            CacheKeyBuilder.key(
                for: OutgoingRequest(head: head, body: RequestBody(bytes: Array("\(parameters)".utf8))),
                parameters: parameters, rule: .ignoring(["ts"]), credential: nil)
        }
        #expect(key(["q": "swift", "ts": 1]) == key(["ts": 2, "q": "swift"]))
        #expect(key(["q": "swift"]) != key(["q": "rust"]))
    }

    @Test func aStreamedBodyHasNoKey() throws {
        let head = HTTPRequest(method: .post, url: try #require(URL(string: "https://a.test/upload")))
        let stream = RequestBody(length: nil, chunks: AsyncThrowingStream<[UInt8], any Error> { $0.finish() })
        #expect(
            CacheKeyBuilder.key(
                for: OutgoingRequest(head: head, body: stream), parameters: nil, rule: .standard,
                credential: nil) == nil)
    }
}

extension CacheControl {
    static func expect(
        noStore: Bool = false, noCache: Bool = false, isPrivate: Bool = false, isPublic: Bool = false,
        mustRevalidate: Bool = false, maxAge: Int? = nil, sharedMaxAge: Int? = nil, swr: Int? = nil,
        hasInvalidAge: Bool = false
    ) -> CacheControl {
        var control = CacheControl([:])
        control.noStore = noStore
        control.noCache = noCache
        control.isPrivate = isPrivate
        control.isPublic = isPublic
        control.mustRevalidate = mustRevalidate
        control.maxAge = maxAge
        control.sharedMaxAge = sharedMaxAge
        control.staleWhileRevalidate = swr
        control.hasInvalidAge = hasInvalidAge
        return control
    }
}
