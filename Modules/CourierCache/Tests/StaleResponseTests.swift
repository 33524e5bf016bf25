import CourierCodable
@_spi(Locking) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// Stale responses served on purpose (RFC 5861): `stale-if-error` when the
/// origin fails, `stale-while-revalidate` with a refresh whose failure is
/// reported, and never against `must-revalidate` or `no-cache`.
struct StaleResponseTests {
    let user = Endpoint<User>(.get("users/7"), on: .api).cache(.http)

    /// `v1` with `fields`, then `then` for every later request.
    static func origin(_ fields: [(String, String)], then later: StubOutcome) -> Origin {
        Origin { _, number in
            guard number == 1 else { return later }
            var headers = HTTPFields()
            headers.append(HTTPField(name: .date, value: RFC9111LetterTests.now))
            for (name, value) in fields {
                if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
            }
            return .json(#"{"id": 7, "name": "v1"}"#, headers: headers)
        }
    }

    /// A cache whose events the test reads, on `clock`.
    final class Observed: Sendable {
        let cache: ResponseCache
        private let events = CacheEventTests.EventList()

        init(_ clock: TestClock) {
            let events = self.events
            cache = ResponseCache(
                clock: clock, onEvent: { event in events.list.withLock { $0.append(event) } })
        }

        var outcomes: [CacheEvent.Outcome] { events.list.withLock { $0.map(\.outcome) } }
    }

    /// A client whose origin answered `user` once with `control` — stored —
    /// and answers `later` from then on; the clock `seconds` past the store.
    func stored(
        _ control: String, then later: StubOutcome, after seconds: Int, plugins: [any Plugin] = []
    ) async throws -> (client: APIClient, origin: Origin, observed: Observed, clock: TestClock) {
        let clock = RFC9111LetterTests.clock()
        let observed = Observed(clock)
        let origin = Self.origin([("Cache-Control", control)], then: later)
        let client = makeClient(origin, cache: observed.cache, clock: clock, plugins: plugins)
        _ = try await client.send(user)
        clock.advance(by: .seconds(seconds))
        return (client, origin, observed, clock)
    }

    @Test(arguments: [
        StubOutcome.status(503), .status(500), .failure(.connectionFailed), .failure(.timedOut),
    ])
    func aFailedOriginIsAnsweredWithinStaleIfError(failure: StubOutcome) async throws {
        let (client, origin, observed, clock) = try await stored(
            "max-age=60, stale-if-error=300", then: failure, after: 100)
        let stale = try await client.response(user)
        #expect(stale.model.name == "v1")
        #expect(stale.response?.headerFields[.age] == "100")
        #expect(origin.count == 2)
        #expect(observed.cache.statistics.staleOnError == 1)
        #expect(observed.outcomes.contains { if case .servedStaleOnError = $0 { true } else { false } })
        // Past the grace period the failure is the caller's.
        clock.advance(by: .seconds(300))
        await #expect(throws: CourierError.self) { try await client.send(user) }
    }

    @Test func aRequestMayAllowStaleIfErrorItself() async throws {
        let client = try await stored("max-age=60", then: .status(502), after: 100).client
        await #expect(throws: CourierError.self) { try await client.send(user) }
        let tolerant = user.adding(headers: [.cacheControl: "stale-if-error=600"])
        #expect(try await client.send(tolerant).name == "v1")
    }

    @Test(arguments: [
        "max-age=60, stale-if-error=300, must-revalidate", "max-age=60, stale-if-error=300, no-cache",
    ])
    func mustRevalidateAndNoCacheForbidStaleOnError(control: String) async throws {
        let (client, _, observed, _) = try await stored(control, then: .status(503), after: 100)
        await #expect(throws: CourierError.self) { try await client.send(user) }
        #expect(observed.cache.statistics.staleOnError == 0)
    }

    /// A 4xx is an answer, not an error RFC 5861 counts: it is the caller's.
    @Test func aClientErrorIsNotAnsweredStale() async throws {
        let client = try await stored("max-age=60, stale-if-error=300", then: .status(404), after: 100).client
        await #expect(throws: CourierError.self) { try await client.send(user) }
    }

    /// `proxy-revalidate` binds shared caches only (RFC 9111 §5.2.2.8).
    @Test func proxyRevalidateDoesNotBindAPrivateCache() async throws {
        let client = try await stored(
            "max-age=60, stale-if-error=300, proxy-revalidate", then: .status(503), after: 100
        ).client
        #expect(try await client.send(user).name == "v1")
    }

    /// A refresh in the background that fails: the caller has the stale
    /// response, and the failure reaches the cache's statistics, its events
    /// and every plugin's `process` hook, marked as a background refresh.
    @Test func aFailedBackgroundRefreshIsReported() async throws {
        let seen = RefreshWatcher()
        let (client, origin, observed, _) = try await stored(
            "max-age=60, stale-while-revalidate=600", then: .status(500), after: 100, plugins: [seen])
        #expect(try await client.send(user).name == "v1")
        await observed.cache.settle()
        #expect(origin.count == 2)
        #expect(observed.cache.statistics.backgroundRefreshes == 1)
        #expect(observed.cache.statistics.backgroundRefreshFailures == 1)
        #expect(observed.outcomes.contains(.refreshFailed(.status)))
        #expect(seen.refreshOutcomes == ["failure status"])
    }

    /// Records what `process` sees of background refreshes.
    final class RefreshWatcher: Plugin, Sendable {
        private let outcomes = Locked<[String]>([])
        var refreshOutcomes: [String] { outcomes.withLock { $0 } }

        func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }

        func process(_ result: Result<RawResponse, CourierError>, context: CallContext) async
            -> Result<RawResponse, CourierError>
        {
            guard context.isBackgroundRefresh else { return result }
            let outcome: String
            switch result {
            case .success: outcome = "success"
            case .failure(let error): outcome = "failure \(error.code)"
            }
            outcomes.withLock { $0.append(outcome) }
            return result
        }
    }
}
