import CourierCodable
@_spi(Locking) import CourierCore
import CourierTesting
import HTTPTypes
import InMemoryLogging
import Logging
import Testing

@testable import CourierCache

/// A cache that does nothing says why: a debug log line and an event for
/// each pass, above all for the passes it neither answered nor stored.
struct CacheEventTests {
    /// A cache whose events and debug log lines the test reads.
    final class Observed: Sendable {
        let cache: ResponseCache
        private let events = EventList()
        let log = InMemoryLogHandler()

        init(sharing: CacheSharing = .private) {
            let events = self.events
            let log = self.log
            var logger = Logger(label: "cache-test") { _ in log }
            logger.logLevel = .debug
            cache = ResponseCache(sharing: sharing, logger: logger) { event in
                events.list.withLock { $0.append(event) }
            }
        }

        var outcomes: [CacheEvent.Outcome] { events.list.withLock { $0.map(\.outcome) } }
        var lines: [String] { log.entries.map { "\($0.message)" } }
    }

    final class EventList: Sendable {
        let list = Locked<[CacheEvent]>([])
    }

    let me = Endpoint<User>(.get("me"), on: .api)

    @Test func aCredentialedCallThatDidNotOptInSaysSoAndHowToOptIn() async throws {
        let observed = Observed()
        let client = makeClient(
            CredentialTests.me(), cache: observed.cache, interceptors: [.bearer { "token-A" }])
        _ = try await client.send(me.cache(.cancelNetwork))
        #expect(observed.outcomes == [.skipped(.credentialed(field: "Authorization"))])
        let line = try #require(observed.lines.first)
        #expect(line.contains("GET me"))
        #expect(line.contains("storesCredentialedResponses = true"))
        #expect(!line.contains("token-A"))
    }

    @Test func optedInAStoreThenAHitAreTold() async throws {
        let observed = Observed()
        let client = makeClient(
            CredentialTests.me(), cache: observed.cache, interceptors: [.bearer { "token-A" }])
        let endpoint = me.cache(.cancelNetwork) { $0.storesCredentialedResponses = true }
        _ = try await client.send(endpoint)
        _ = try await client.send(endpoint)
        #expect(observed.outcomes == [.miss, .stored, .hit])
    }

    @Test func eachReasonNotToStoreIsNamed() async throws {
        let cases: [(Origin, CacheSkip)] = [
            (
                Origin { _, _ in .json(#"{"id":1,"name":"a"}"#, headers: [.cacheControl: "no-store"]) },
                .noStore
            ),
            (Origin { _, _ in .json(#"{"id":1,"name":"a"}"#, headers: [.vary: "*"]) }, .varyAll),
            (Origin { _, _ in .json(#"{"id":1,"name":"a"}"#, status: 201) }, .notCacheable(status: 201)),
        ]
        for (origin, reason) in cases {
            let observed = Observed()
            _ = try await makeClient(origin, cache: observed.cache).send(me.cache(.http))
            #expect(observed.outcomes == [.miss, .skipped(reason)], "\(reason)")
            #expect(observed.lines.last?.hasSuffix(reason.description) == true, "\(observed.lines)")
        }
        let observed = Observed(sharing: .shared)
        let privately = Origin { _, _ in
            .json(#"{"id":1,"name":"a"}"#, headers: [.cacheControl: "private, max-age=60"])
        }
        _ = try await makeClient(privately, cache: observed.cache).send(me.cache(.http))
        #expect(observed.outcomes == [.miss, .skipped(.privateInSharedCache)])
    }

    @Test func aPluginThatDoesNotDeclareIsNamed() async throws {
        struct Stamp: Plugin {}
        let observed = Observed()
        let client = makeClient(CredentialTests.me(), cache: observed.cache, plugins: [Stamp()])
        _ = try await client.send(me.cache(.cancelNetwork))
        guard case .skipped(.undeclaredCredential(let name)) = observed.outcomes.first else {
            Issue.record("not skipped as undeclared: \(observed.outcomes)")
            return
        }
        #expect(name.contains("Stamp"))
    }

    @Test func aPostUnderHTTPRulesAndAPredicateSayWhy() async throws {
        let observed = Observed()
        let client = makeClient(CredentialTests.me(), cache: observed.cache)
        _ = try await client.send(Endpoint<User>(.post("me"), on: .api).cache(.http))
        _ = try await client.send(me.cache(.cancelNetwork).cacheWrite(when: { _ in false }))
        #expect(observed.outcomes == [.skipped(.method("POST")), .miss, .skipped(.refusedByPredicate)])
    }
}
