import CourierCore
import Testing

@testable import CourierAuthentication

/// Every transition of ``AuthenticatorState``: credentials are strings, times
/// are plain durations, and each step says what it must answer.
struct AuthenticatorStateTests {
    typealias State = AuthenticatorState<String>

    static func fresh(maxRefreshes: Int = 5, window: Duration = .seconds(30)) -> State {
        State(credential: "token-1", maxRefreshes: maxRefreshes, window: window)
    }

    /// A request signed with `credential` of `generation`, when `round` refreshes had ended.
    static func signed(_ credential: String = "token-1", generation: Int = 1, round: Int = 0) -> State.Signed
    {
        State.Signed(credential: credential, generation: generation, round: round)
    }

    /// The step's shape: `use <credential>#<generation>`, `wait <n>`,
    /// `refresh <credential> wait <n>`, `refuse <n>`, `failed`.
    static func describe(_ step: State.Step) -> String {
        switch step {
        case .use(let signed): "use \(signed.credential)#\(signed.generation)"
        case .wait(let waiter): "wait \(waiter)"
        case .refresh(let signed, let waiter): "refresh \(signed.credential) wait \(waiter)"
        case .refuse(let count): "refuse \(count)"
        case .refreshFailed: "failed"
        }
    }

    @Test func aValidCredentialIsUsedAsItIs() {
        var state = Self.fresh()
        #expect(state.usable?.credential == "token-1")
        #expect(Self.describe(state.prepare(checked: 1, expired: false, now: .zero)) == "use token-1#1")
        #expect(!state.refreshing)
    }

    @Test func anExpiredCredentialIsRefreshedFirstAndLaterCallsWait() throws {
        var state = Self.fresh()
        #expect(
            Self.describe(state.prepare(checked: 1, expired: true, now: .zero)) == "refresh token-1 wait 1")
        #expect(state.refreshing)
        #expect(state.usable == nil)
        // Calls arriving during the refresh wait, expired or not.
        #expect(Self.describe(state.prepare(checked: 1, expired: false, now: .zero)) == "wait 2")
        #expect(Self.describe(state.authenticationFailed(Self.signed(), now: .zero)) == "wait 3")
        let ended = state.refreshSucceeded("token-2", round: 0)
        let end = try #require(ended)
        #expect(end.waiters == [1, 2, 3])
        #expect(end.signed?.credential == "token-2")
        #expect(end.signed?.generation == 2)
        #expect(!state.refreshing)
        #expect(state.waiters.isEmpty)
        #expect(state.usable?.generation == 2)
    }

    @Test func manyFailuresCauseOneRefreshAndWaitInArrivalOrder() {
        var state = Self.fresh()
        let steps = (0..<50).map { _ in Self.describe(state.authenticationFailed(Self.signed(), now: .zero)) }
        #expect(steps.first == "refresh token-1 wait 1")
        #expect(Array(steps.dropFirst()) == (2...50).map { "wait \($0)" })
        #expect(state.refreshSucceeded("token-2", round: 0)?.waiters == Array(1...50))
    }

    @Test func aFailureOfAnOlderCredentialReplaysWithoutRefreshing() {
        var state = Self.fresh()
        _ = state.authenticationFailed(Self.signed(), now: .zero)
        _ = state.refreshSucceeded("token-2", round: 0)
        // A request signed with token-1 that fails after the refresh:
        #expect(Self.describe(state.authenticationFailed(Self.signed(), now: .seconds(1))) == "use token-2#2")
        #expect(!state.refreshing)
        // One signed with the current credential refreshes.
        let current = Self.signed("token-2", generation: 2, round: 1)
        #expect(
            Self.describe(state.authenticationFailed(current, now: .seconds(1))) == "refresh token-2 wait 2")
    }

    @Test func anExpiryCheckedBeforeARefreshEndedUsesTheNewCredential() {
        var state = Self.fresh()
        _ = state.prepare(checked: 1, expired: true, now: .zero)
        _ = state.refreshSucceeded("token-2", round: 0)
        // The caller saw generation 1 expired; generation 2 is current now.
        #expect(Self.describe(state.prepare(checked: 1, expired: true, now: .zero)) == "use token-2#2")
    }

    @Test func aFailedRefreshEndsEveryWaiterAndKeepsTheCredential() throws {
        var state = Self.fresh()
        _ = state.authenticationFailed(Self.signed(), now: .zero)
        _ = state.authenticationFailed(Self.signed(), now: .zero)
        let ended = state.refreshFailed(round: 0)
        let end = try #require(ended)
        #expect(end.waiters == [1, 2])
        #expect(end.signed == nil)
        #expect(!state.refreshing)
        #expect(state.usable?.credential == "token-1")
        #expect(state.usable?.generation == 1)
        #expect(state.usable?.round == 1)
    }

    @Test func aLateFailureOfARequestSignedBeforeAFailedRefreshFailsWithoutRefreshing() {
        var state = Self.fresh()
        _ = state.authenticationFailed(Self.signed(), now: .zero)
        _ = state.refreshFailed(round: 0)
        // Sent with token-1 before the refresh failed, answered 401 after it:
        #expect(
            Self.describe(state.authenticationFailed(Self.signed(round: 0), now: .seconds(1))) == "failed")
        #expect(!state.refreshing)
        // Signed after the failure: a new refresh may start.
        #expect(
            Self.describe(state.authenticationFailed(Self.signed(round: 1), now: .seconds(1)))
                == "refresh token-1 wait 2")
    }

    @Test func aWithdrawnWaiterIsNotWokenAndTheRefreshGoesOn() {
        var state = Self.fresh()
        for _ in 0..<3 { _ = state.authenticationFailed(Self.signed(), now: .zero) }
        let first = state.withdraw(2)
        let again = state.withdraw(2)
        #expect(first && !again)
        #expect(state.refreshing)
        #expect(state.refreshSucceeded("token-2", round: 0)?.waiters == [1, 3])
        let afterTheEnd = state.withdraw(1)
        #expect(!afterTheEnd)
    }

    @Test func aReplacedCredentialEndsTheRefreshWhoseResultNoLongerCounts() {
        var state = Self.fresh()
        _ = state.authenticationFailed(Self.signed(), now: .zero)
        let end = state.replace(with: "logged-in")
        #expect(end.waiters == [1])
        #expect(end.signed?.credential == "logged-in")
        let lateSuccess = state.refreshSucceeded("token-2", round: 0)
        let lateFailure = state.refreshFailed(round: 0)
        #expect(lateSuccess == nil && lateFailure == nil)
        #expect(state.usable?.credential == "logged-in")
        #expect(state.usable?.generation == 2)
    }

    @Test func theLoopGuardRefusesTooManyRefreshesInTheWindow() {
        var state = Self.fresh(maxRefreshes: 2, window: .seconds(30))
        for (round, second) in [0, 10].enumerated() {
            let signed = Self.signed("token-\(round + 1)", generation: round + 1, round: round)
            #expect(
                Self.describe(state.authenticationFailed(signed, now: .seconds(second)))
                    == "refresh token-\(round + 1) wait \(round + 1)")
            _ = state.refreshSucceeded("token-\(round + 2)", round: round)
        }
        let third = Self.signed("token-3", generation: 3, round: 2)
        #expect(Self.describe(state.authenticationFailed(third, now: .seconds(29))) == "refuse 2")
        #expect(Self.describe(state.prepare(checked: 3, expired: true, now: .seconds(29))) == "refuse 2")
        #expect(!state.refreshing)
        // Once the first refresh leaves the window, one more is allowed.
        #expect(
            Self.describe(state.authenticationFailed(third, now: .seconds(30))) == "refresh token-3 wait 3")
    }
}
