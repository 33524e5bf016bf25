import CourierCodable
@_spi(Locking) @_spi(Transport) import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// The four CSAPIService read modes and `none`, through the whole pipeline:
/// what reaches the network, what is delivered, in which order, and that
/// every call ends exactly once.
struct ReadModeTests {
    let user = Endpoint<User>(.get("users/7"), on: .api)

    @Test func cancelNetworkAnswersAHitWithoutSending() async throws {
        // Given a response stored by a first call
        let origin = Origin.versions()
        let client = makeClient(origin, cache: ResponseCache())
        let endpoint = user.cache(.cancelNetwork)
        #expect(try await client.send(endpoint).name == "v1")
        // When the endpoint is called again
        let reply = try await client.response(endpoint)
        // Then the stored response answers: nothing sent, no attempt
        #expect(reply.model.name == "v1")
        #expect(reply.attempts == 0)
        #expect(reply.response?.cacheSource == .cache)
        #expect(origin.count == 1)
        #expect(summary(await deliveries(client, endpoint)) == ["cache v1 last"])
        #expect(origin.count == 1)
    }

    @Test func cancelNetworkMissGoesToTheNetworkAndIsNoError() async throws {
        let origin = Origin.versions()
        let client = makeClient(origin, cache: ResponseCache())
        // A miss: the network answers, and the only delivery is its answer.
        #expect(summary(await deliveries(client, user.cache(.cancelNetwork))) == ["network v1 last"])
        #expect(origin.count == 1)
    }

    @Test func alsoNetworkDeliversTheHitAndRefreshesSilently() async throws {
        let origin = Origin.versions()
        let cache = ResponseCache()
        let client = makeClient(origin, cache: cache)
        let endpoint = user.cache(.alsoNetwork)
        // A miss behaves like `none`.
        #expect(summary(await deliveries(client, endpoint)) == ["network v1 last"])
        // A hit is delivered at once; the network still runs, in the background.
        #expect(summary(await deliveries(client, endpoint)) == ["cache v1 last"])
        await cache.settle()
        #expect(origin.count == 2)
        #expect(cache.statistics.backgroundRefreshes == 1)
        // The refresh wrote what the network said: the next hit is v2.
        #expect(try await client.send(endpoint).name == "v2")
        await cache.settle()
        #expect(origin.count == 3)
    }

    @Test func alsoNetworkWithCallbackDeliversTheHitThenTheNetwork() async throws {
        let origin = Origin.versions()
        let client = makeClient(origin, cache: ResponseCache())
        let endpoint = user.cache(.alsoNetworkWithCallback)
        #expect(summary(await deliveries(client, endpoint)) == ["network v1 last"])
        #expect(summary(await deliveries(client, endpoint)) == ["cache v1", "network v2 last"])
        // `send` returns the last delivery — the network's — and asks no one for the stored one.
        #expect(try await client.send(endpoint).name == "v3")
        #expect(origin.count == 3)
    }

    @Test func noneNeverReadsButWrites() async throws {
        let origin = Origin.versions()
        let client = makeClient(origin, cache: ResponseCache())
        // A write-only endpoint fills the cache…
        #expect(try await client.send(user.cache(.none)).name == "v1")
        #expect(try await client.send(user.cache(.none)).name == "v2")
        // …which an endpoint that reads finds (same request, same key).
        #expect(try await client.send(user.cache(.cancelNetwork)).name == "v2")
        #expect(origin.count == 2)
    }

    @Test func endpointsWithoutACachePolicyDoNotTouchTheCache() async throws {
        let origin = Origin.versions()
        let cache = ResponseCache()
        let client = makeClient(origin, cache: cache)
        _ = try await client.send(user)
        _ = try await client.send(user)
        #expect(origin.count == 2)
        #expect(cache.statistics == CacheStatistics())
        #expect(cache.memory?.count == 0)
    }

    @Test func theCachesDefaultsApplyToEveryEndpoint() async throws {
        let origin = Origin.versions()
        let client = makeClient(origin, cache: ResponseCache(defaults: CachePolicy(read: .cancelNetwork)))
        _ = try await client.send(user)
        #expect(try await client.send(user).name == "v1")
        // …unless an endpoint opts out.
        #expect(try await client.send(user.withoutCache()).name == "v2")
        #expect(origin.count == 2)
    }

    @Test func everyPathDeliversItsLastExactlyOnce() async throws {
        let failing = Origin { _, _ in .status(503) }
        for mode in [CacheReadMode.none, .alsoNetwork, .alsoNetworkWithCallback, .cancelNetwork, .http] {
            let client = makeClient(failing, cache: ResponseCache())
            let all = await deliveries(client, user.cache(mode))
            #expect(all.filter(\.isLast).count == 1, "\(mode)")
            #expect(all.last?.isLast == true, "\(mode)")
            #expect(all.last?.result.failure?.code == .status, "\(mode)")
        }
    }

    @Test func theCallbackFormDeliversInOrderAndEndsOnce() async throws {
        let origin = Origin.versions()
        let client = makeClient(origin, cache: ResponseCache())
        let endpoint = user.cache(.alsoNetworkWithCallback)
        _ = try await client.send(endpoint)
        let received = Locked<[String]>([])
        let call = client.deliveries(endpoint) { delivery in
            received.withLock { $0 += summary([delivery]) }
        }
        await call.wait()
        #expect(received.withLock { $0 } == ["cache v1", "network v2 last"])
    }

    @Test func aCancelledCallbackCallStillEndsOnce() async throws {
        let gate = TestGate()
        let origin = Origin.versions()
        let held = StubTransport { request in
            await gate.wait()
            return try await origin.transport.send(
                OutgoingRequest(head: request.head), options: TransportOptions()
            )
            .asOutcome
        }
        var configuration = APIClient.Configuration(transport: held, decoder: .codable)
        configuration.cache = ResponseCache()
        let client = APIClient(configuration: configuration)
        let received = Locked<[CacheDelivery<User>]>([])
        let call = client.deliveries(user.cache(.cancelNetwork)) { delivery in
            received.withLock { $0.append(delivery) }
        }
        call.cancel()
        gate.open()
        await call.wait()
        let all = received.withLock { $0 }
        #expect(all.count == 1)
        #expect(all.first?.isLast == true)
        #expect(all.first?.result.failure?.code == .cancelled)
    }

    @Test func cancelAllEndsABackgroundRefresh() async throws {
        let gate = TestGate()
        let count = Locked(0)
        let transport = StubTransport { _ in
            let number = count.withLock { value in
                value += 1
                return value
            }
            if number > 1 { await gate.wait() }
            return .json(#"{"id": 7, "name": "v\#(number)"}"#)
        }
        let cache = ResponseCache()
        var configuration = APIClient.Configuration(transport: transport, decoder: .codable)
        configuration.cache = cache
        let client = APIClient(configuration: configuration)
        let endpoint = user.cache(.alsoNetwork)
        _ = try await client.send(endpoint)
        #expect(try await client.send(endpoint).name == "v1")
        // The refresh is running (it may be waiting at the gate): cancelAll
        // ends it, and what its transport returns afterwards is not written.
        try await waitUntil { client.runningCalls > 0 }
        client.cancelAll()
        gate.open()
        await cache.settle()
        #expect(try await client.send(endpoint.cache(.cancelNetwork)).name == "v1")
    }
}

extension RawResponse {
    /// This response as a stub outcome.
    var asOutcome: StubOutcome {
        .response(status: statusCode, headers: headerFields, body: body.bytes ?? [])
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// What a call's monitors hear of the cache: a miss, then an answer from storage.
struct CacheEventMonitorTests {
    final class Lookups: Plugin {
        private let seen = Locked<[CallEvent.CacheOutcome]>([])
        var outcomes: [CallEvent.CacheOutcome] { seen.withLock { $0 } }
        func credentialIdentity(for context: CallContext) async throws -> CredentialIdentity { .none }
        func callEvent(_ event: CallEvent) {
            if case .cache(let outcome) = event.kind { seen.withLock { $0.append(outcome) } }
        }
    }

    @Test func aMissThenAnAnswerFromStorage() async throws {
        let lookups = Lookups()
        let client = makeClient(Origin.versions(), cache: ResponseCache(), plugins: [lookups])
        let endpoint = Endpoint<User>(.get("users/7"), on: .api).cache(.cancelNetwork)
        _ = try await client.send(endpoint)
        _ = try await client.send(endpoint)
        #expect(lookups.outcomes == [.network(revalidating: false), .answered(refresh: false)])
    }
}
