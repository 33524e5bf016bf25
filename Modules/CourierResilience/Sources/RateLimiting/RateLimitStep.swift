@_spi(Locking) @_spi(Transport) import CourierCore
import HTTPTypes

/// The client's rate limiter around each attempt (``AttemptSlot/rateLimit``):
/// reserves the attempt's place under its key — waiting for it, or failing
/// at once — then reads what the response announces about the rate.
struct RateLimitStep: AttemptStep {
    let limiter: RateLimiter

    /// The longest wait when the attempt has no deadline.
    static let unbounded = Duration.seconds(365 * 24 * 3600)

    nonisolated(nonsending) func attempt(_ attempt: inout Attempt, _ state: CallState, _ next: AttemptNext)
        async throws(CourierError) -> RawResponse
    {
        let head = attempt.request.head
        let key = limiter.key(for: head, state: state)
        let maxWait = limiter.whenLimited == .fail ? .zero : attempt.options.timeout ?? Self.unbounded
        let decision: RateLimitDecision
        if let local = limiter.local {
            decision = local.reserve(key, limit: limiter.limit, maxWait: maxWait)
        } else {
            decision = try await reserve(key, maxWait: maxWait, head, attempt.number)
        }
        switch decision {
        case .limited(let retryAfter):
            throw CourierError(
                .rateLimited, stage: .transport,
                message: "\(key) is over its rate for \(retryAfter) more; nothing was sent", request: head,
                attempt: attempt.number, underlying: RateLimitedError(key: key, retryAfter: retryAfter))
        case .go(let delay) where delay > .zero:
            do {
                try await CallCancellation.sleep(
                    for: delay, on: state.clock, cancellation: state.cancellation)
            } catch {
                throw ErrorMapping.cancelled(
                    by: state.cancellation, stage: .transport, request: head, attempt: attempt.number)
            }
            attempt.options.timeout = attempt.options.timeout.map { $0 - delay }
        case .go:
            break
        }
        do throws(CourierError) {
            let response = try await next(&attempt, state)
            // Most responses announce nothing: no clock, no parsing, no await for them.
            if RateLimitAnnouncement.mayAnnounce(response.head) {
                await learn(from: response.head, key: key, state)
            }
            return response
        } catch {
            if let response = error.response, RateLimitAnnouncement.mayAnnounce(response.head) {
                await learn(from: response.head, key: key, state)
            }
            throw error
        }
    }

    /// The decision of a store that is not this process's memory.
    private nonisolated(nonsending) func reserve(
        _ key: String, maxWait: Duration, _ head: HTTPRequest, _ number: Int
    )
        async throws(CourierError) -> RateLimitDecision
    {
        do {
            return try await limiter.store.reserve(key, limit: limiter.limit, maxWait: maxWait)
        } catch {
            throw CourierError(
                .rateLimited, stage: .transport, message: "the rate limiter's store failed: \(error)",
                request: head, attempt: number)
        }
    }

    /// Pauses the key for what the response announces.
    private nonisolated(nonsending) func learn(from response: HTTPResponse, key: String, _ state: CallState)
        async
    {
        guard let pause = RateLimitAnnouncement.pause(in: response, now: state.clock.date), pause > .zero
        else {
            return
        }
        if let local = limiter.local {
            local.pause(key, for: pause)
        } else {
            try? await limiter.store.pause(key, for: pause)
        }
    }
}
