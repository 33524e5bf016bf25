import Testing

@testable import CourierCore

/// Every transition of ``AuthenticatorState``: credentials are strings, times
/// are plain durations, and each step says what it must answer.
struct AuthenticatorStateTests {
    typealias State = AuthenticatorState<String>

    static func fresh(maxRefreshes: Int = 5, window: Duration = .seconds(30)) -> State {
        State(credential: "token-1", maxRefreshes: maxRefreshes, window: window)
    }

    /// The step's shape: `use <credential>#<generation>`, `wait <n>`,
    /// `refresh <credential> wait <n>`, `refuse <n>`.
    static func describe(_ step: State.Step) -> String {
        switch step {
        case .use(let signed): "use \(signed.credential)#\(signed.generation)"
        case .wait(let waiter): "wait \(waiter)"
        case .refresh(let credential, let waiter): "refresh \(credential) wait \(waiter)"
        case .refuse(let count): "refuse \(count)"
        }
    }

    @Test func aValidCredentialIsUsedAsItIs() {
        var state = Self.fresh()
        #expect(state.usable?.credential == "token-1")
        #expect(Self.describe(state.prepare(checked: 1, expired: false, now: .zero)) == "use token-1#1")
        #expect(!state.refreshing)
    }

    @Test func anExpiredCredentialIsRefreshedFirstAndLaterCallsWait() {
        var state = Self.fresh()
        #expect(
            Self.describe(state.prepare(checked: 1, expired: true, now: .zero)) == "refresh token-1 wait 1")
        #expect(state.refreshing)
        #expect(state.usable == nil)
        // Calls arriving during the refresh wait, expired or not.
        #expect(Self.describe(state.prepare(checked: 1, expired: false, now: .zero)) == "wait 2")
        #expect(Self.describe(state.authenticationFailed(generation: 1, now: .zero)) == "wait 3")
        let end = state.refreshSucceeded("token-2")
        #expect(end.waiters == [1, 2, 3])
        #expect(end.signed?.credential == "token-2")
        #expect(end.signed?.generation == 2)
        #expect(!state.refreshing)
        #expect(state.waiters.isEmpty)
        #expect(state.usable?.generation == 2)
    }

    @Test func manyFailuresCauseOneRefreshAndWaitInArrivalOrder() {
        var state = Self.fresh()
        let steps = (0..<50).map { _ in Self.describe(state.authenticationFailed(generation: 1, now: .zero)) }
        #expect(steps.first == "refresh token-1 wait 1")
        #expect(Array(steps.dropFirst()) == (2...50).map { "wait \($0)" })
        let end = state.refreshSucceeded("token-2")
        #expect(end.waiters == Array(1...50))
    }

    @Test func aFailureOfAnOlderCredentialReplaysWithoutRefreshing() {
        var state = Self.fresh()
        _ = state.authenticationFailed(generation: 1, now: .zero)
        _ = state.refreshSucceeded("token-2")
        // A request signed with token-1 that fails after the refresh:
        #expect(Self.describe(state.authenticationFailed(generation: 1, now: .seconds(1))) == "use token-2#2")
        #expect(!state.refreshing)
        // One signed with the current credential refreshes.
        #expect(
            Self.describe(state.authenticationFailed(generation: 2, now: .seconds(1)))
                == "refresh token-2 wait 2")
    }

    @Test func anExpiryCheckedBeforeARefreshEndedUsesTheNewCredential() {
        var state = Self.fresh()
        _ = state.prepare(checked: 1, expired: true, now: .zero)
        _ = state.refreshSucceeded("token-2")
        // The caller saw generation 1 expired; generation 2 is current now.
        #expect(Self.describe(state.prepare(checked: 1, expired: true, now: .zero)) == "use token-2#2")
    }

    @Test func aFailedRefreshEndsEveryWaiterAndKeepsTheCredential() {
        var state = Self.fresh()
        _ = state.authenticationFailed(generation: 1, now: .zero)
        _ = state.authenticationFailed(generation: 1, now: .zero)
        let end = state.refreshFailed()
        #expect(end.waiters == [1, 2])
        #expect(end.signed == nil)
        #expect(!state.refreshing)
        #expect(state.usable?.credential == "token-1")
        #expect(state.usable?.generation == 1)
        // A later failure may try again.
        #expect(
            Self.describe(state.authenticationFailed(generation: 1, now: .seconds(1)))
                == "refresh token-1 wait 3")
    }

    @Test func aWithdrawnWaiterIsNotWokenAndTheRefreshGoesOn() {
        var state = Self.fresh()
        _ = state.authenticationFailed(generation: 1, now: .zero)
        _ = state.authenticationFailed(generation: 1, now: .zero)
        _ = state.authenticationFailed(generation: 1, now: .zero)
        let first = state.withdraw(2)
        let again = state.withdraw(2)
        #expect(first && !again)
        #expect(state.refreshing)
        #expect(state.refreshSucceeded("token-2").waiters == [1, 3])
        let afterTheEnd = state.withdraw(1)
        #expect(!afterTheEnd)
    }

    @Test func theLoopGuardRefusesTooManyRefreshesInTheWindow() {
        var state = Self.fresh(maxRefreshes: 2, window: .seconds(30))
        var generation = 1
        for second in [0, 10] {
            #expect(
                Self.describe(state.authenticationFailed(generation: generation, now: .seconds(second)))
                    == "refresh token-\(generation) wait \(generation)")
            generation += 1
            _ = state.refreshSucceeded("token-\(generation)")
        }
        #expect(Self.describe(state.authenticationFailed(generation: 3, now: .seconds(29))) == "refuse 2")
        #expect(Self.describe(state.prepare(checked: 3, expired: true, now: .seconds(29))) == "refuse 2")
        #expect(!state.refreshing)
        // Once the first refresh leaves the window, one more is allowed.
        #expect(
            Self.describe(state.authenticationFailed(generation: 3, now: .seconds(30)))
                == "refresh token-3 wait 3")
    }
}
