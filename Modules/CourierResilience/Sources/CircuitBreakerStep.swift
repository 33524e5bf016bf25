@_spi(Locking) import CourierCore
import HTTPTypes

/// The client's circuit breaker around each attempt
/// (``AttemptSlot/circuitBreaker``): refuses it while the origin's circuit
/// is open, and records how it ended, validation included.
struct CircuitBreakerStep: AttemptStep {
    let breaker: CircuitBreaker

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        let head = attempt.request.head
        let origin = "\(head.scheme ?? "")://\(head.authority ?? "")"
        if let shared = breaker.shared, let remaining = await shared.openFor(origin) {
            breaker.adopt(origin, openFor: remaining)
        }
        let permit = try breaker.admit(origin, request: head, attempt: attempt.number)
        let outcome: Result<RawResponse, CourierError>
        do throws(CourierError) {
            outcome = .success(try await next(&attempt, state))
        } catch {
            outcome = .failure(error)
        }
        let failed = breaker.record(origin, permit, outcome)
        if let shared = breaker.shared, permit == .closed, let failed {
            shared.record(origin, failed: failed, breaker.configuration)
        }
        // Moved out, not copied: a copy of a response retains every part of it.
        switch consume outcome {
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }
}
