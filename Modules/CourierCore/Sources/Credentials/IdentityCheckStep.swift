import HTTPTypes

/// Holds a shared pass whose later components all declared
/// ``CredentialIdentity/none`` to it (``AttemptSlot/identityCheck``): the
/// head about to be sent must carry the credential fields the response
/// cache and coalescing keyed the call with
/// (``PassIdentity/checkUnchanged(_:against:_:)``); otherwise nothing is
/// sent. A step of calls that may be shared (a response cache, coalescing).
struct IdentityCheckStep: AttemptStep {
    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        if state.identity?.addsNoCredential == true {
            do throws(CourierError) {
                try PassIdentity.checkUnchanged(
                    attempt.request.head, against: attempt.given, state.settings.credentials)
            } catch var error {
                error.request = attempt.request.head
                error.attempt = attempt.number
                throw error
            }
        }
        return try await next(&attempt, state)
    }
}
