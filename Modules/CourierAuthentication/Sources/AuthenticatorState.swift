import CourierCore

/// The rules of an ``Authenticator`` as a plain value: which credential a
/// request is signed with, when a refresh starts, who waits for it and what
/// each waiter gets — no locks, no tasks, no clock (times are passed in), so
/// every transition is tested as a table (`AuthenticatorStateTests`).
///
/// Credentials are numbered: each successful refresh makes a new
/// *generation*; and refreshes are counted as they end, successful or not
/// (*rounds*). A request remembers both as it was signed, so a 401 for a
/// request signed before the current credential replays it with the
/// current one instead of refreshing again, and a 401 for a request signed
/// before a refresh of its credential *failed* fails with that refresh's
/// error instead of starting another one.
struct AuthenticatorState<Credential: Sendable>: Sendable {
    /// A waiting call's number.
    typealias Waiter = UInt64

    /// A credential, its generation, and how many refreshes had ended when it was handed out.
    struct Signed: Sendable {
        let credential: Credential
        let generation: Int
        let round: Int
    }

    /// What a call does next.
    enum Step: Sendable {
        /// Sign with this credential and send.
        case use(Signed)
        /// Wait for the refresh in flight; it ends with ``RefreshEnd``.
        case wait(Waiter)
        /// Start the refresh from this credential (the caller runs it, once,
        /// and reports its end with the credential's round), and wait for
        /// it like everyone else.
        case refresh(from: Signed, waiter: Waiter)
        /// Fail: too many refreshes in the window (the loop guard).
        case refuse(refreshes: Int)
        /// Fail with the error of the refresh that failed after this request was signed.
        case refreshFailed
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
        current = Signed(credential: credential, generation: 1, round: 0)
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

    /// A call's request, signed with `signed`, failed authentication.
    mutating func authenticationFailed(_ signed: Signed, now: Duration) -> Step {
        if refreshing { return .wait(enqueue()) }
        // Signed with an older credential than the current one: the refresh
        // already happened, replay with the current credential.
        if signed.generation < current.generation { return .use(current) }
        // A refresh of this very credential ended since, and failed: its
        // answer stands for every request signed before it.
        if signed.round < current.round { return .refreshFailed }
        return startRefresh(now: now)
    }

    /// The refresh started in `round` succeeded: a new generation; every
    /// waiter goes on with it. A refresh that no longer counts (the
    /// credential was replaced meanwhile) changes nothing.
    mutating func refreshSucceeded(_ credential: Credential, round: Int) -> RefreshEnd? {
        guard refreshing, round == current.round else { return nil }
        return replace(with: credential)
    }

    /// The refresh started in `round` failed: every waiter fails; the
    /// credential stays, in a new round (requests signed before it fail with
    /// its error, later ones may refresh again).
    mutating func refreshFailed(round: Int) -> RefreshEnd? {
        guard refreshing, round == current.round else { return nil }
        current = Signed(
            credential: current.credential, generation: current.generation, round: current.round + 1)
        return endRefresh(signed: nil)
    }

    /// Replaces the credential (a refresh's result, or a new login): a new
    /// generation and round; the waiters of a refresh in flight get it, and
    /// that refresh no longer counts.
    mutating func replace(with credential: Credential) -> RefreshEnd {
        current = Signed(credential: credential, generation: current.generation + 1, round: current.round + 1)
        return endRefresh(signed: current)
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
        return .refresh(from: current, waiter: enqueue())
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
