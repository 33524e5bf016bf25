import CourierCache
import CourierCodable
import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// `cache.json`: what reaches the server for each read mode, revalidation,
/// the credential rule and `no-store` — over every transport, seen from the
/// server's journal.
struct CacheContracts {
    static func client(_ kind: ContractTransport, _ cache: ResponseCache, token: String? = nil) -> APIClient {
        var configuration = APIClient.Configuration(
            transport: kind.transport, decoder: .codable, timeout: contractSafetyNet)
        if let token { configuration.callInterceptors = [.bearer { token }] }
        configuration.cache = cache
        return APIClient(configuration: configuration)
    }

    static func deliveries(_ client: APIClient, _ endpoint: Endpoint<User>) async -> [String] {
        var all: [String] = []
        for await delivery in client.deliveries(endpoint) {
            var what = delivery.model?.name ?? ""
            if case .failure(let error) = delivery.result { what = "error \(error.code)" }
            all.append("\(delivery.source) \(what)")
        }
        return all
    }

    @Test(arguments: ContractTransport.allCases)
    func cancelNetworkSendsNothingOnAHit(kind: ContractTransport) async throws {
        try await contract("cache: cancelNetwork — a hit sends nothing, a miss goes to the network", kind) {
            try await ContractServer.with("cache.json") { server in
                let client = Self.client(kind, ResponseCache())
                let user = Endpoint<User>(.get("cache/user"), on: server.node()).cache(.cancelNetwork)
                check(try await client.send(user).name == "v1", "the miss went to the network")
                let reply = try await client.response(user)
                check(
                    reply.model.name == "v1" && reply.attempts == 0,
                    "a hit: \(reply.model.name), \(reply.attempts)")
                check(reply.response?.cacheSource == .cache, "from the cache")
                try await server.exchanges().expectCount("cache-user", .exactly(1))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func alsoNetworkRefreshesSilently(kind: ContractTransport) async throws {
        try await contract(
            "cache: alsoNetwork — the hit is delivered, the network refreshes it silently", kind
        ) {
            try await ContractServer.with("cache.json") { server in
                let cache = ResponseCache()
                let client = Self.client(kind, cache)
                let user = Endpoint<User>(.get("cache/user"), on: server.node()).cache(.alsoNetwork)
                check(await Self.deliveries(client, user) == ["network v1"], "a miss behaves like none")
                let hit = await Self.deliveries(client, user)
                check(hit == ["cache v1"], "only the hit is delivered: \(hit)")
                await cache.settle()
                try await server.exchanges().expectCount("cache-user", .exactly(2))
                let next = await Self.deliveries(client, user)
                check(next == ["cache v2"], "the refresh wrote v2: \(next)")
                await cache.settle()
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func alsoNetworkWithCallbackDeliversBoth(kind: ContractTransport) async throws {
        try await contract("cache: alsoNetworkWithCallback — the hit, then the network's answer", kind) {
            try await ContractServer.with("cache.json") { server in
                let client = Self.client(kind, ResponseCache())
                let user = Endpoint<User>(.get("cache/user"), on: server.node()).cache(
                    .alsoNetworkWithCallback)
                _ = try await client.send(user)
                let both = await Self.deliveries(client, user)
                check(both == ["cache v1", "network v2"], "two deliveries, tagged: \(both)")
                try await server.exchanges().expectCount("cache-user", .exactly(2))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func noneAlwaysAsksTheNetwork(kind: ContractTransport) async throws {
        try await contract("cache: none — every call reaches the server, the entry is still written", kind) {
            try await ContractServer.with("cache.json") { server in
                let cache = ResponseCache()
                let client = Self.client(kind, cache)
                let user = Endpoint<User>(.get("cache/user"), on: server.node()).cache(.none)
                check(try await client.send(user).name == "v1", "v1")
                check(try await client.send(user).name == "v2", "v2")
                check(cache.statistics.writes == 2, "written: \(cache.statistics.writes)")
                try await server.exchanges().expectCount("cache-user", .exactly(2))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func revalidationWithA304(kind: ContractTransport) async throws {
        try await contract(
            "cache: http — a stale entry is revalidated with If-None-Match, a 304 answers", kind
        ) {
            try await ContractServer.with("cache.json", required: ["cache-etag-not-modified"]) { server in
                let client = Self.client(kind, ResponseCache())
                let user = Endpoint<User>(.get("cache/etag"), on: server.node()).cache(.http)
                check(try await client.send(user).name == "Ada", "the first answer")
                let reply = try await client.response(user)
                check(reply.model.name == "Ada", "the stored body: \(reply.model.name)")
                check(
                    reply.response?.cacheSource == .revalidated,
                    "revalidated: \(String(describing: reply.response?.cacheSource))")
                let journal = try await server.exchanges()
                journal.expectCount("cache-etag", .exactly(1))
                journal.expectCount("cache-etag-not-modified", .exactly(1))
                journal.expectHeader("If-None-Match", .equals(#""v1""#), on: "cache-etag-not-modified")
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func oneUsersResponseIsNeverServedToAnother(kind: ContractTransport) async throws {
        try await contract("cache: token A's response is never served for token B", kind) {
            try await ContractServer.with("cache.json") { server in
                let cache = ResponseCache()
                let me = Endpoint<User>(.get("cache/me"), on: server.node())
                let optedIn = me.cache(.cancelNetwork) { $0.storesCredentialedResponses = true }
                let (a, b) = (
                    Self.client(kind, cache, token: "token-A"), Self.client(kind, cache, token: "token-B")
                )
                check(try await a.send(optedIn).name == "user A", "A")
                check(try await b.send(optedIn).name == "user B", "B gets B's, not A's stored one")
                check(try await a.response(optedIn).attempts == 0, "A's entry serves A")
                check(try await b.response(optedIn).model.name == "user B", "B's entry serves B")
                // Without opting in, a credentialed response is never stored.
                _ = try await a.send(me.cache(.cancelNetwork))
                _ = try await a.send(me.cache(.cancelNetwork))
                let journal = try await server.exchanges()
                journal.expectCount("cache-me-a", .exactly(3))
                journal.expectCount("cache-me-b", .exactly(1))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func noStoreIsNeverStored(kind: ContractTransport) async throws {
        try await contract("cache: a no-store response is never stored", kind) {
            try await ContractServer.with("cache.json") { server in
                let cache = ResponseCache()
                let client = Self.client(kind, cache)
                let endpoint = Endpoint<User>(.get("cache/no-store"), on: server.node()).cache(.cancelNetwork)
                _ = try await client.send(endpoint)
                _ = try await client.send(endpoint)
                check(cache.statistics.writes == 0, "nothing written")
                try await server.exchanges().expectCount("cache-no-store", .exactly(2))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func aStoredBusinessErrorIsNeverASuccess(kind: ContractTransport) async throws {
        try await contract("cache: a stored {\"code\":1001} is a cache error, then the network answers", kind)
        {
            try await ContractServer.with("cache.json") { server in
                let client = Self.client(kind, ResponseCache())
                // A raw endpoint (no envelope check) stores the 1001 envelope…
                var raw = Endpoint<RawResponse>(.get("cache/captcha"), on: server.node()).cache(.none)
                raw.envelope = .none
                _ = try await client.send(raw)
                // …and the typed endpoint on the same URL validates what it reads.
                let user = Endpoint<User>(.get("cache/captcha"), on: server.node()).cache(.cancelNetwork)
                let both = await Self.deliveries(client, user)
                check(both == ["cache error cache", "network Ada"], "\(both)")
                try await server.exchanges().expectCount("cache-business-error", .exactly(2))
            }
        }
    }

    @Test(arguments: ContractTransport.allCases)
    func theDiskTierAnswersANewProcess(kind: ContractTransport) async throws {
        try await contract("cache: the disk tier answers a client with an empty memory tier", kind) {
            try await ContractServer.with("cache.json") { server in
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "courier-cache-contract-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: directory) }
                let disk = try await DiskStore.open(directory: directory)
                let user = Endpoint<User>(.get("cache/user"), on: server.node()).cache(.cancelNetwork)
                let first = ResponseCache(disk: disk)
                _ = try await Self.client(kind, first).send(user)
                await first.settle()
                let reply = try await Self.client(kind, ResponseCache(disk: disk)).response(user)
                check(reply.model.name == "v1" && reply.attempts == 0, "from disk: \(reply.model.name)")
                try await server.exchanges().expectCount("cache-user", .exactly(1))
            }
        }
    }
}
