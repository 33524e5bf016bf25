import CourierCodable
import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierCache

/// A stored response is a response like any other: validated, decoded,
/// written only when allowed — and one that no longer passes is a cache
/// error that never ends the call.
struct StoredResponseTests {
    @Test func aStoredBusinessErrorIsNeverDeliveredAsASuccess() async throws {
        // Given `{"code": 1001}` stored by an endpoint that reads no envelope
        // (a raw endpoint on the same URL: same request, same key)…
        let origin = Origin { _, number in
            number == 1
                ? .json(#"{"code": 1001, "msg": "captcha required", "data": null}"#)
                : .json(#"{"code": 0, "msg": "ok", "data": {"id": 7, "name": "Ada"}}"#)
        }
        let cache = ResponseCache()
        let client = makeClient(origin, cache: cache)
        let raw = Endpoint<RawResponse>(.get("users/7"), on: .enveloped).cache(.none)
        var enveloped = raw.cache(.alsoNetworkWithCallback)
        enveloped.envelope = .node
        var plain = raw
        plain.envelope = .none
        _ = try await client.send(plain)
        // …an endpoint that checks the envelope gets a cache error, then the network's answer.
        let user = Endpoint<User>(spec: enveloped.spec, serializer: .decodable())
        let all = await deliveries(client, user)
        #expect(summary(all) == ["cache error cache", "network Ada last"])
        #expect(all.first?.result.failure?.rootCause.code == .envelope)
        #expect(cache.statistics.rejected == 1)
        #expect(origin.count == 2)
    }

    @Test func aStoredBodyThatNoLongerDecodesIsACacheErrorAndTheNetworkRuns() async throws {
        struct Renamed: Decodable, Sendable { let identifier: Int }
        let origin = Origin { _, number in
            number == 1 ? .json(#"{"id": 7, "name": "Ada"}"#) : .json(#"{"identifier": 7}"#)
        }
        let client = makeClient(origin, cache: ResponseCache())
        _ = try await client.send(Endpoint<User>(.get("users/7"), on: .api).cache(.none))
        // The model changed shape since the body was stored (an app update):
        let endpoint = Endpoint<Renamed>(.get("users/7"), on: .api).cache(.cancelNetwork)
        var sources: [CacheSource] = []
        var failures: [CourierError.Code] = []
        for await delivery in client.deliveries(endpoint) {
            sources.append(delivery.source)
            if let error = delivery.result.failure { failures.append(error.code) }
        }
        #expect(sources == [.cache, .network])
        #expect(failures == [.cache])
        // The network's answer replaced the entry: the next call is a hit that decodes.
        #expect(try await client.response(endpoint).attempts == 0)
        #expect(origin.count == 2)
    }

    @Test func sendReturnsTheNetworksAnswerWhenTheStoredOneFails() async throws {
        let origin = Origin { _, number in
            number == 1 ? .json(#"{"id": "seven"}"#) : .json(#"{"id": 7, "name": "Ada"}"#)
        }
        let client = makeClient(origin, cache: ResponseCache())
        _ = try await client.send(Endpoint<RawResponse>(.get("users/7"), on: .api).cache(.none))
        let reply = try await client.response(Endpoint<User>(.get("users/7"), on: .api).cache(.cancelNetwork))
        #expect(reply.model.name == "Ada")
        #expect(reply.attempts == 1)
    }

    @Test func theWritePredicateSeesTheDecodedModel() async throws {
        let origin = Origin { _, number in .json(#"{"id": \#(number), "name": "v\#(number)"}"#) }
        let client = makeClient(origin, cache: ResponseCache())
        // Written only when the id is even.
        let endpoint = Endpoint<User>(.get("users/me"), on: .api).cache(.cancelNetwork).cacheWrite {
            $0.id % 2 == 0
        }
        #expect(try await client.send(endpoint).id == 1)  // not written
        #expect(try await client.send(endpoint).id == 2)  // written
        #expect(try await client.send(endpoint).id == 2)  // a hit
        #expect(origin.count == 2)
    }

    @Test func failuresAreNeverWritten() async throws {
        let origin = Origin { _, number in number == 1 ? .status(500) : .json(#"{"id": 7, "name": "Ada"}"#) }
        let cache = ResponseCache()
        let client = makeClient(origin, cache: cache)
        let endpoint = Endpoint<User>(.get("users/7"), on: .api).cache(.cancelNetwork)
        await #expect(throws: CourierError.self) { try await client.send(endpoint) }
        #expect(cache.statistics.writes == 0)
        #expect(try await client.send(endpoint).name == "Ada")
        #expect(cache.statistics.writes == 1)
    }

    @Test func writeTiersDecideWhereEntriesGo() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try await DiskStore.open(directory: directory)
            for (tier, inMemory, onDisk) in [
                (CacheWriteTier.none, 0, 0), (.memory, 1, 0), (.disk, 0, 1), (.memoryAndDisk, 1, 1),
            ] {
                let cache = ResponseCache(disk: disk)
                try await cache.removeAll()
                let client = makeClient(.versions(), cache: cache)
                _ = try await client.send(
                    Endpoint<User>(.get("users/7"), on: .api).cache(.none) { $0.write = tier })
                await cache.settle()
                #expect(cache.memory?.count == inMemory, "\(tier)")
                #expect(try await disk.count() == onDisk, "\(tier)")
            }
        }
    }

    @Test func aDiskHitIsPromotedToMemory() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try await DiskStore.open(directory: directory)
            let origin = Origin.versions()
            let first = ResponseCache(disk: disk)
            _ = try await makeClient(origin, cache: first).send(
                Endpoint<User>(.get("users/7"), on: .api).cache(.none))
            await first.settle()
            // A new process, say: an empty memory tier over the same disk.
            let second = ResponseCache(disk: disk)
            let client = makeClient(origin, cache: second)
            let endpoint = Endpoint<User>(.get("users/7"), on: .api).cache(.cancelNetwork)
            #expect(try await client.send(endpoint).name == "v1")
            #expect(second.memory?.count == 1)
            #expect(origin.count == 1)
        }
    }

    @Test func expiryComesFromThePolicyOnTheCachesClock() async throws {
        let clock = TestClock()
        let origin = Origin.versions()
        let client = makeClient(origin, cache: ResponseCache(clock: clock), clock: clock)
        let endpoint = Endpoint<User>(.get("users/7"), on: .api).cache(.cancelNetwork) {
            $0.expiry = .seconds(60)
        }
        _ = try await client.send(endpoint)
        clock.advance(by: .seconds(59))
        #expect(try await client.send(endpoint).name == "v1")
        clock.advance(by: .seconds(1))
        #expect(try await client.send(endpoint).name == "v2")
        #expect(origin.count == 2)
    }

    @Test func theDefaultExpiryIsFiveMinutesNotZero() async throws {
        let clock = TestClock()
        let origin = Origin.versions()
        let client = makeClient(origin, cache: ResponseCache(clock: clock), clock: clock)
        let endpoint = Endpoint<User>(.get("users/7"), on: .api).cache(.cancelNetwork)
        _ = try await client.send(endpoint)
        #expect(try await client.send(endpoint).name == "v1")
        clock.advance(by: .seconds(299))
        #expect(try await client.send(endpoint).name == "v1")
        clock.advance(by: .seconds(1))
        #expect(try await client.send(endpoint).name == "v2")
    }

    @Test func dateAndNeverExpiries() async throws {
        let clock = TestClock()
        let origin = Origin.versions()
        let client = makeClient(origin, cache: ResponseCache(clock: clock), clock: clock)
        let until = clock.date.addingTimeInterval(10)
        let dated = Endpoint<User>(.get("a"), on: .api).cache(.cancelNetwork) { $0.expiry = .date(until) }
        let forever = Endpoint<User>(.get("b"), on: .api).cache(.cancelNetwork) { $0.expiry = .never }
        _ = try await client.send(dated)
        _ = try await client.send(forever)
        clock.advance(by: .seconds(86_400 * 365))
        #expect(try await client.send(forever).name == "v2")
        #expect(try await client.send(dated).name == "v3")
        #expect(origin.count == 3)
    }
}
