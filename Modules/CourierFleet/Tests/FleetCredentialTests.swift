import CourierAuthentication
@_spi(Locking) import CourierCore
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import CourierFleet

/// One token refresh for a fleet, on a real `redis-server`: instances read
/// the credential one of them fetched instead of fetching it again, take
/// turns when nothing is stored, wait out a holder that died, and a holder
/// that outlived its lock stores nothing.
struct FleetCredentialTests {
    /// A client-credentials grant counted across every instance: token
    /// `token-N` for the N-th fetch; each fetch may wait for a gate.
    final class Issuer: Sendable {
        let fetches = Locked(0)
        let inFlight = Locked((now: 0, most: 0))
        let gate: TestGate?

        init(gate: TestGate? = nil) { self.gate = gate }

        var count: Int { fetches.withLock { $0 } }
        var mostAtOnce: Int { inFlight.withLock { $0.most } }

        func issue() async -> String {
            let number = fetches.withLock { count in
                count += 1
                return count
            }
            inFlight.withLock { $0 = (now: $0.now + 1, most: max($0.most, $0.now + 1)) }
            await gate?.wait()
            inFlight.withLock { $0.now -= 1 }
            return "token-\(number)"
        }
    }

    struct Token: Codable, Sendable, Equatable {
        var access: String
    }

    struct Grant: InitialCredentialProvider {
        let issuer: Issuer

        func apply(_ token: Token, to request: inout HTTPRequest) {
            request.headerFields[.authorization] = "Bearer \(token.access)"
        }
        func initialCredential(through client: APIClient) async throws -> Token {
            Token(access: await issuer.issue())
        }
        func refresh(_ token: Token, through client: APIClient) async throws -> Token {
            try await initialCredential(through: client)
        }
    }

    static func key() throws -> CredentialSealingKey {
        try #require(CredentialSealingKey(Array(repeating: 7, count: 32)))
    }

    static func sealed() throws -> FleetCredentials<Grant>.Storage {
        .sealed(with: try key(), keptFor: .seconds(3_600))
    }

    /// One instance: its own link to Redis, authenticator and client; its
    /// server accepts any token the issuer gave, and records the tokens.
    struct Instance {
        let fleet: FleetState
        let provider: FleetCredentials<Grant>
        let auth: Authenticator<FleetCredentials<Grant>>
        let client: APIClient
        let server: RecordingTransport

        init(
            port: Int, issuer: Issuer, storage: FleetCredentials<Grant>.Storage,
            clock: TestClock = TestClock(),
            lockDuration: Duration = .seconds(3_600)
        ) {
            fleet = FleetState(
                .init(
                    endpoint: .tcp(host: "127.0.0.1", port: port), namespace: "credential-tests",
                    expectedInstances: 2, commandTimeout: .seconds(10), connectTimeout: .seconds(10)))
            provider = FleetCredentials(
                Grant(issuer: issuer), fleet: fleet, scope: "orders",
                configuration: .init(storage: storage, lockDuration: lockDuration), clock: clock)
            auth = Authenticator(provider, for: [.api])
            server = RecordingTransport(
                StubTransport { request in
                    request.head.headerFields[.authorization]?.hasPrefix("Bearer token-") == true
                        ? .json(#"{"ok":true}"#) : .status(401)
                })
            client = APIClient(configuration: .init(transport: server, callInterceptors: [auth]))
        }

        func call() async throws { _ = try await client.send(Endpoint<RawResponse>(.get("me"), on: .api)) }

        var tokens: [String] { server.records.map { $0.head.headerFields[.authorization] ?? "-" } }
    }

    @Test func sealingOpensOnlyWithTheSameKeyAndPlace() throws {
        let other = try #require(CredentialSealingKey(Array(repeating: 8, count: 32)))
        let plain = Array(#"{"access":"secret"}"#.utf8)
        let key = try Self.key()
        let sealed = try #require(CredentialSealing.seal(plain, key: key, context: Array("a".utf8)))
        #expect(!sealed.starts(with: plain) && sealed.count == plain.count + 28)
        #expect(CredentialSealing.open(sealed, key: key, context: Array("a".utf8)) == plain)
        #expect(CredentialSealing.open(sealed, key: other, context: Array("a".utf8)) == nil)
        #expect(CredentialSealing.open(sealed, key: key, context: Array("b".utf8)) == nil)
        var altered = sealed
        altered[20] ^= 1
        #expect(CredentialSealing.open(altered, key: key, context: Array("a".utf8)) == nil)
        // A fresh nonce each time: the same credential never seals the same.
        #expect(CredentialSealing.seal(plain, key: key, context: Array("a".utf8)) != sealed)
        #expect(CredentialSealingKey(Array(repeating: 1, count: 31)) == nil)
    }

    /// The second instance uses the first one's token: one fetch for both.
    @Test func aStoredCredentialServesTheOtherInstances() async throws {
        try await withRedis { redis in
            let issuer = Issuer()
            let one = Instance(port: redis.port, issuer: issuer, storage: try Self.sealed())
            let other = Instance(port: redis.port, issuer: issuer, storage: try Self.sealed())
            try await one.call()
            try await other.call()
            try await other.call()
            #expect(issuer.count == 1)
            #expect(one.tokens == ["Bearer token-1"])
            #expect(other.tokens == ["Bearer token-1", "Bearer token-1"])
            // What Redis holds is sealed: the token is not in it.
            let stored = await one.fleet.perform([
                Array("HGET".utf8), Array((one.provider.turns.base + ":value").utf8), Array("c".utf8),
            ])
            let bytes = try #require(stored?.bytes)
            #expect(!String(decoding: bytes, as: UTF8.self).contains("token-1"))
        }
    }

    /// An instance that needs a credential while another fetches one waits
    /// for it (polling on its clock) instead of fetching too.
    @Test func anInstanceWaitsForTheHoldersCredential() async throws {
        try await withRedis { redis in
            let gate = TestGate()
            let issuer = Issuer(gate: gate)
            let clock = TestClock(mode: .manual)
            let storage = try Self.sealed()
            let one = Instance(port: redis.port, issuer: issuer, storage: storage)
            let other = Instance(port: redis.port, issuer: issuer, storage: storage, clock: clock)
            let first = Task { try await one.call() }
            try await waitUntil { issuer.count == 1 }  // the first holds the lock, fetching
            let second = Task { try await other.call() }
            try await waitUntil("the second found the lock taken") { clock.sleeperCount >= 1 }
            gate.open()
            try await first.value
            clock.advance(by: .milliseconds(100))
            try await second.value
            #expect(issuer.count == 1)
            #expect(other.tokens == ["Bearer token-1"])
        }
    }

    /// Nothing stored: every instance fetches for itself, one at a time.
    @Test func withoutStorageTheInstancesTakeTurns() async throws {
        try await withRedis { redis in
            let gate = TestGate()
            let issuer = Issuer(gate: gate)
            let clock = TestClock(mode: .manual)
            let one = Instance(port: redis.port, issuer: issuer, storage: .notStored)
            let other = Instance(port: redis.port, issuer: issuer, storage: .notStored, clock: clock)
            let first = Task { try await one.call() }
            try await waitUntil { issuer.count == 1 }
            let second = Task { try await other.call() }
            try await waitUntil("the second waits for its turn") { clock.sleeperCount >= 1 }
            #expect(issuer.count == 1)
            gate.open()
            try await first.value
            clock.advance(by: .milliseconds(100))
            try await second.value
            #expect(issuer.count == 2)
            #expect(issuer.mostAtOnce == 1)
            #expect(one.tokens == ["Bearer token-1"])
            #expect(other.tokens == ["Bearer token-2"])
        }
    }

    /// A holder that died (its lock never let go) blocks the others only
    /// until the lock expires on Redis; then one of them fetches. The
    /// lock's expiry is brought forward on Redis (`PEXPIRE`) once the
    /// survivor waits, so that nothing depends on how fast the machine is.
    @Test func aDeadHoldersLockExpires() async throws {
        try await withRedis { redis in
            let issuer = Issuer()
            let clock = TestClock(mode: .manual)
            let storage = try Self.sealed()
            let dead = Instance(port: redis.port, issuer: issuer, storage: storage)
            guard case .held = await dead.provider.turns.acquire() else {
                Issue.record("the first turn was not granted")
                return
            }
            let survivor = Instance(port: redis.port, issuer: issuer, storage: storage, clock: clock)
            let done = Locked(false)
            let call = Task {
                try await survivor.call()
                done.withLock { $0 = true }
            }
            try await waitUntil("the survivor waits for the lock") { clock.sleeperCount >= 1 }
            #expect(issuer.count == 0)
            let lock = Array((dead.provider.turns.base + ":lock").utf8)
            #expect(await dead.fleet.perform([Array("PEXPIRE".utf8), lock, Array("1".utf8)])?.integer == 1)
            // Wake the survivor until it sees the lock gone.
            try await waitUntil("the survivor fetched") {
                if clock.sleeperCount > 0 { clock.advance(by: .milliseconds(100)) }
                return done.withLock { $0 }
            }
            try await call.value
            #expect(issuer.count == 1)
            #expect(survivor.tokens == ["Bearer token-1"])
        }
    }

    /// The fencing token: a holder whose lock expired and was taken by
    /// another stores nothing, and cannot let go of the other's lock.
    @Test func aHolderThatOutlivedItsLockStoresNothing() async throws {
        try await withRedis { redis in
            let issuer = Issuer()
            let storage = try Self.sealed()
            let late = Instance(port: redis.port, issuer: issuer, storage: storage)
            let next = Instance(port: redis.port, issuer: issuer, storage: storage)
            guard case .held(let stale) = await late.provider.turns.acquire() else {
                Issue.record("the first turn was not granted")
                return
            }
            // The lock expires (deleted here) and the next instance takes it.
            _ = await late.fleet.perform([
                Array("DEL".utf8), Array((late.provider.turns.base + ":lock").utf8),
            ])
            guard case .held(let current) = await next.provider.turns.acquire() else {
                Issue.record("the second turn was not granted")
                return
            }
            #expect(current > stale)
            #expect(await late.provider.turns.store(Token(access: "stale"), fence: stale) == false)
            await late.provider.turns.release(stale)
            #expect(await next.provider.turns.acquire() == .taken)  // still the next one's
            #expect(await next.provider.turns.store(Token(access: "fresh"), fence: current))
            let judge = next.provider.judge
            #expect(
                await late.provider.turns.stored(Token.self, newerThan: nil, judge) == Token(access: "fresh"))
        }
    }

    /// Redis down: the instance fetches alone, and the call succeeds.
    @Test func withoutRedisAnInstanceFetchesAlone() async throws {
        let port = try await withRedis { $0.port }  // a port nobody listens on any more
        let issuer = Issuer()
        let alone = Instance(port: port, issuer: issuer, storage: try Self.sealed())
        try await alone.call()
        #expect(issuer.count == 1)
        #expect(alone.tokens == ["Bearer token-1"])
        #expect(!alone.fleet.isShared)
    }
}
