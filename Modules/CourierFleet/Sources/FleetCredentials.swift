public import CourierAuthentication
public import CourierCore
public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One token refresh for a whole fleet: a ``/CourierAuthentication/CredentialProvider``
/// whose refreshes (and first fetch) the instances take turns at through a
/// lock on the fleet's Redis, so that twenty instances refresh once, not
/// twenty times — and an API that revokes the previous token on refresh
/// does not log the instances out one by one.
///
/// An instance that needs a new credential first looks for one another
/// instance stored; if there is none newer than its own, it takes the lock
/// (with a fencing token: a number Redis counts up for every holder),
/// refreshes through `base`, stores the result, and lets go. The others
/// wait, reading the stored credential instead of refreshing. A holder that
/// dies mid-refresh holds the lock only until ``Configuration/lockDuration``
/// ends; one that outlives its lock stores nothing (its fencing token is no
/// longer the lock's), so a stale credential never replaces a newer one.
///
/// What Redis holds is the app's choice, ``Storage``: the credential sealed
/// with a key the app gives (AES-256-GCM; the others read it), or nothing
/// (each instance then refreshes for itself, one at a time). When Redis is
/// down or slow the instance refreshes alone, as an unshared provider does.
///
/// ```swift
/// let provider = FleetCredentials(
///     ClientCredentials(), fleet: fleet, scope: "billing-api",
///     storage: .sealed(with: key, keptFor: .seconds(3_000)))
/// let auth = Authenticator(provider, for: [.billing])
/// ```
public struct FleetCredentials<Base: CredentialProvider>: CredentialProvider
where Base.Credential: Codable {
    /// The base provider's credential.
    public typealias Credential = Base.Credential

    /// What the fleet keeps of a refreshed credential on Redis.
    public enum Storage: Sendable {
        /// Nothing: every instance refreshes for itself, one at a time (the
        /// lock serialises the refreshes, which keeps an API that allows
        /// one refresh at a time content).
        case notStored
        /// The credential's JSON sealed with `key` (AES-256-GCM, bound to
        /// the fleet and scope), kept `keptFor` — make it no longer than
        /// the credential lives; an instance also checks
        /// `isExpired` before using one.
        case sealed(with: CredentialSealingKey, keptFor: Duration)
    }

    /// How the instances take turns.
    public struct Configuration: Sendable {
        /// What Redis keeps of a refreshed credential.
        public var storage: Storage
        /// How long a holder may hold the lock: 30 s. A holder that dies
        /// blocks the others this long at most; make it longer than a
        /// refresh takes.
        public var lockDuration: Duration
        /// How often a waiting instance looks for the stored credential or
        /// a free lock: 100 ms.
        public var pollInterval: Duration

        /// A configuration with the defaults above.
        public init(
            storage: Storage, lockDuration: Duration = .seconds(30),
            pollInterval: Duration = .milliseconds(100)
        ) {
            self.storage = storage
            self.lockDuration = lockDuration
            self.pollInterval = pollInterval
        }
    }

    /// The provider that applies, refreshes and judges credentials.
    public let base: Base
    let turns: FleetCredentialTurns

    /// A provider whose refreshes `fleet`'s instances take in turns.
    /// - Parameters:
    ///   - base: Applies, refreshes and judges the credential.
    ///   - fleet: The fleet's shared state.
    ///   - scope: Which credential this is, when a fleet holds several
    ///     (one per API or tenant); instances share only the same scope.
    ///   - configuration: What is stored, and how long a turn lasts.
    ///   - clock: What waiting instances sleep on.
    public init(
        _ base: Base, fleet: FleetState, scope: String, configuration: Configuration,
        clock: any CourierClock = SystemClock()
    ) {
        self.base = base
        turns = FleetCredentialTurns(fleet: fleet, scope: scope, settings: configuration.turns, clock: clock)
    }

    /// A provider whose refreshes `fleet`'s instances take in turns, with
    /// the default lock duration and poll interval.
    public init(
        _ base: Base, fleet: FleetState, scope: String, storage: Storage,
        clock: any CourierClock = SystemClock()
    ) {
        self.init(base, fleet: fleet, scope: scope, configuration: .init(storage: storage), clock: clock)
    }

    /// The base provider's.
    public func apply(_ credential: Credential, to request: inout HTTPRequest) throws {
        try base.apply(credential, to: &request)
    }

    /// The credential another instance stored, when it is newer than
    /// `credential`; otherwise the base provider's refresh, in this
    /// instance's turn.
    public func refresh(_ credential: Credential, through client: APIClient) async throws -> Credential {
        try await turns.take(replacing: credential, judge: judge) {
            try await base.refresh(credential, through: client)
        }
    }

    /// The base provider's.
    public func isExpired(_ credential: Credential, now: Date) -> Bool {
        base.isExpired(credential, now: now)
    }

    /// The base provider's.
    public func isAuthenticationFailure(_ error: CourierError) -> Bool {
        base.isAuthenticationFailure(error)
    }

    /// The base provider's.
    public func principal(of credential: Credential) -> String? {
        base.principal(of: credential)
    }

    var judge: FleetCredentialTurns.Judge<Credential> {
        FleetCredentialTurns.Judge(isExpired: { [base] in base.isExpired($0, now: $1) })
    }
}

extension FleetCredentials: InitialCredentialProvider where Base: InitialCredentialProvider {
    /// The credential another instance stored; otherwise the base
    /// provider's first fetch, in this instance's turn.
    public func initialCredential(through client: APIClient) async throws -> Credential {
        try await turns.take(replacing: nil, judge: judge) {
            try await base.initialCredential(through: client)
        }
    }
}

extension FleetCredentials.Configuration {
    var turns: FleetCredentialTurns.Settings {
        switch storage {
        case .notStored:
            .init(sealing: nil, keptFor: .zero, lockDuration: lockDuration, pollInterval: pollInterval)
        case .sealed(let key, let keptFor):
            .init(sealing: key, keptFor: keptFor, lockDuration: lockDuration, pollInterval: pollInterval)
        }
    }
}
