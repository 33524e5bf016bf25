@_spi(Locking) import CourierCore

/// The call's concurrency group admits every attempt, retries included
/// (``AttemptSlot/groupAdmission``): its policy may queue it or refuse it.
/// The attempt counts as running until it ends — a stream whose head is in,
/// until its body ends (`APIClient.openStream` finishes it then).
struct GroupAdmissionStep: AttemptStep {
    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        guard let membership = state.scope[held: GroupMembership.self] else {
            return try await next(&attempt, state)
        }
        do throws(CourierError) {
            try await membership.admit(state, attempt: state.attemptsBegun + 1)
        } catch var refusal {
            refusal.request = attempt.request.head
            refusal.attempt = state.attemptsBegun
            throw refusal
        }
        let result: Result<RawResponse, CourierError>
        do throws(CourierError) {
            result = .success(try await next(&attempt, state))
        } catch {
            result = .failure(error)
        }
        let streamOpen: Bool = if case .success = result { state.isStream } else { false }
        if !streamOpen { membership.finish() }
        // Moved out, not copied: a copy of a response retains every part of it.
        switch consume result {
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }
}
