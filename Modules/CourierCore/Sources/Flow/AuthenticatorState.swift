/// The rules of an ``Authenticator`` as a plain value: which credential a
/// request is signed with, when a refresh starts, who waits for it and what
/// each waiter gets — no locks, no tasks, no clock (times are passed in), so
/// every transition is tested as a table (`AuthenticatorStateTests`).
///
/// Credentials are numbered: each successful refresh makes a new
/// *generation*. A request remembers the generation it was signed with, so
/// a 401 for a request signed before the current credential replays it with
/// the current one instead of refreshing again.
struct AuthenticatorState<Credential: Sendable>: Sendable {
    /// A waiting call's number.
    typealias Waiter = UInt64

    /// A credential and its generation.
    struct Signed: Sendable {
        let credential: Credential
        let generation: Int
    }

    /// What a call does next.
    enum Step: Sendable {
        /// Sign with this credential and send.
        case use(Signed)
        /// Wait for the refresh in flight; it ends with ``RefreshEnd``.
        case wait(Waiter)
        /// Start the refresh from this credential (the caller runs it, once),
        /// and wait for it like everyone else.
        case refresh(from: Credential, waiter: Waiter)
        /// Fail: too many refreshes in the window (the loop guard).
        case refuse(refreshes: Int)
    }

    /// How a refresh ended, for each waiter in arrival order.
    struct RefreshEnd: Sendable {
        let waiters: [Waiter]
        /// The new credential, or `nil` when the refresh failed.
        let signed: Signed?
    }

    private(set) var current: Signed
    /// Whether a refresh is in flight.
    private(set) var refreshing = false
    /// Calls waiting for the refresh, in arrival order.
    private(set) var waiters: [Waiter] = []
    /// When recent refreshes started (clock time), for the loop guard.
    private var refreshTimes: [Duration] = []
    private var nextWaiter: Waiter = 0
    /// The loop guard: at most `maxRefreshes` refreshes start within `window`.
    let maxRefreshes: Int
    let window: Duration

    init(credential: Credential, maxRefreshes: Int, window: Duration) {
        current = Signed(credential: credential, generation: 1)
        self.maxRefreshes = maxRefreshes
        self.window = window
    }

    /// A call is about to send: it found generation `checked` current and
    /// `expired` (or within its refresh window), or a refresh in flight.
    mutating func prepare(checked generation: Int, expired: Bool, now: Duration) -> Step {
        if refreshing { return .wait(enqueue()) }
        // A refresh ended since the caller looked: the new credential is fresh.
        guard expired, generation == current.generation else { return .use(current) }
        return startRefresh(now: now)
    }

    /// The current credential when no refresh is in flight (the fast path).
    var usable: Signed? { refreshing ? nil : current }

    /// A call's request, signed with `generation`, failed authentication.
    mutating func authenticationFailed(generation: Int, now: Duration) -> Step {
        // Signed with an older credential than the current one: the refresh
        // already happened, replay with the current credential.
        if generation < current.generation, !refreshing { return .use(current) }
        if refreshing { return .wait(enqueue()) }
        return startRefresh(now: now)
    }

    /// The refresh succeeded: a new generation; every waiter goes on with it.
    mutating func refreshSucceeded(_ credential: Credential) -> RefreshEnd {
        current = Signed(credential: credential, generation: current.generation + 1)
        return endRefresh(signed: current)
    }

    /// The refresh failed: every waiter fails; the credential stays.
    mutating func refreshFailed() -> RefreshEnd {
        endRefresh(signed: nil)
    }

    /// A waiter gives up (its task or call was cancelled).
    /// - Returns: Whether it was waiting.
    mutating func withdraw(_ waiter: Waiter) -> Bool {
        guard let index = waiters.firstIndex(of: waiter) else { return false }
        waiters.remove(at: index)
        return true
    }

    private mutating func startRefresh(now: Duration) -> Step {
        let window = self.window
        refreshTimes.removeAll { now - $0 >= window }
        guard refreshTimes.count < maxRefreshes else { return .refuse(refreshes: refreshTimes.count) }
        refreshTimes.append(now)
        refreshing = true
        return .refresh(from: current.credential, waiter: enqueue())
    }

    private mutating func enqueue() -> Waiter {
        nextWaiter += 1
        waiters.append(nextWaiter)
        return nextWaiter
    }

    private mutating func endRefresh(signed: Signed?) -> RefreshEnd {
        refreshing = false
        defer { waiters = [] }
        return RefreshEnd(waiters: waiters, signed: signed)
    }
}
