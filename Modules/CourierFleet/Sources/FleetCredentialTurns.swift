import CourierCore
import CourierRedis

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The turns of ``FleetCredentials``: read what another instance stored,
/// else take the lock, refresh, store, let go — or wait and look again.
/// Every step is one command or script on the fleet's Redis; any that gets
/// no answer (Redis down or slow) makes the instance refresh alone.
struct FleetCredentialTurns: Sendable {
    /// What ``FleetCredentials/Configuration`` says, without the generic.
    struct Settings: Sendable {
        /// The key credentials are sealed with; `nil`: nothing is stored.
        var sealing: CredentialSealingKey?
        var keptFor: Duration
        var lockDuration: Duration
        var pollInterval: Duration
    }

    /// How the base provider judges a credential read from Redis.
    struct Judge<Credential>: Sendable {
        let isExpired: @Sendable (Credential, Date) -> Bool
    }

    /// What asking for the lock came to.
    enum Turn: Equatable {
        /// This instance holds the lock, with this fencing token.
        case held(Int64)
        /// Another instance holds it.
        case taken
        /// No answer from Redis: refresh alone.
        case alone
    }

    let fleet: FleetState
    let settings: Settings
    let clock: any CourierClock
    /// The Redis key the scope's keys begin with (`…:lock`, `…:fence`, `…:value`).
    let base: String

    init(fleet: FleetState, scope: String, settings: Settings, clock: any CourierClock) {
        self.fleet = fleet
        self.settings = settings
        self.clock = clock
        base = fleet.key("credential", scope)
    }

    /// A credential to replace `old` (`nil`: there is none yet): one
    /// another instance stored, or `fetch`'s in this instance's turn.
    func take<Credential: Codable & Sendable>(
        replacing old: Credential?, judge: Judge<Credential>,
        fetch: () async throws -> Credential
    ) async throws -> Credential {
        let replaced = old.flatMap { try? Self.encoder.encode($0) }.map { Array($0) }
        while true {
            if let stored = await stored(Credential.self, newerThan: replaced, judge) { return stored }
            switch await acquire() {
            case .alone:
                return try await fetch()
            case .held(let fence):
                // A holder may have stored and let go between the read and the lock.
                if let stored = await stored(Credential.self, newerThan: replaced, judge) {
                    await release(fence)
                    return stored
                }
                let fresh: Credential
                do {
                    fresh = try await fetch()
                } catch {
                    await release(fence)
                    throw error
                }
                _ = await store(fresh, fence: fence)
                await release(fence)
                return fresh
            case .taken:
                try await clock.sleep(for: settings.pollInterval)
            }
        }
    }

    /// The stored credential, when there is one, it opens with the key, it
    /// differs from `replaced` (the one being replaced) and it has not expired.
    func stored<Credential: Decodable>(
        _ type: Credential.Type, newerThan replaced: [UInt8]?, _ judge: Judge<Credential>
    ) async -> Credential? {
        guard let key = settings.sealing,
            let sealed = await fleet.perform([Array("HGET".utf8), Array(valueKey.utf8), Array("c".utf8)])?
                .bytes,
            let plain = CredentialSealing.open(sealed, key: key, context: Array(valueKey.utf8)),
            plain != replaced,
            let credential = try? Self.decoder.decode(Credential.self, from: Data(plain)),
            !judge.isExpired(credential, clock.date)
        else { return nil }
        return credential
    }

    /// Asks for the lock.
    func acquire() async -> Turn {
        let milliseconds = max(1, Int64((settings.lockDuration / .milliseconds(1)).rounded(.up)))
        guard let reply = await fleet.run(FleetScripts.acquireTurn, keys: [base], arguments: [milliseconds]),
            let fence = reply.integer
        else { return .alone }
        return fence > 0 ? .held(fence) : .taken
    }

    /// Stores `credential` for the others, sealed, if this instance still
    /// holds the lock with `fence`; whether it was stored.
    func store<Credential: Encodable>(_ credential: Credential, fence: Int64) async -> Bool {
        guard let key = settings.sealing, let plain = try? Self.encoder.encode(credential),
            let sealed = CredentialSealing.seal(Array(plain), key: key, context: Array(valueKey.utf8))
        else { return false }
        let kept = max(1, Int64((settings.keptFor / .milliseconds(1)).rounded(.down)))
        let reply = await fleet.run(
            FleetScripts.storeCredential, keys: [base],
            byteArguments: [Array(String(fence).utf8), sealed, Array(String(kept).utf8)])
        return reply?.integer == 1
    }

    /// Lets go of the lock, if this instance still holds it with `fence`.
    func release(_ fence: Int64) async {
        _ = await fleet.run(FleetScripts.releaseTurn, keys: [base], arguments: [fence])
    }

    private var valueKey: String { base + ":value" }

    /// Keys sorted: one credential, one encoding, on every instance.
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
    private static var decoder: JSONDecoder { JSONDecoder() }
}
