public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What the retry stage does after a failed attempt.
public enum RetryDecision: Sendable, Equatable {
    /// Wait this long, then send the next attempt.
    case retry(after: Duration)
    /// Stop and report the failure.
    case stop(RetryStopReason)
}

/// Why the retry stage stopped.
///
/// An open set: more values may join in a minor release, so a `switch`
/// over it needs a `default` branch.
public struct RetryStopReason: Sendable, Hashable, CustomStringConvertible {
    /// The values, for an exhaustive `switch` inside the module.
    enum Kind: String, Sendable, Hashable {
        case notRetryable, attemptsExhausted, methodNotRetryable, bodyNotReplayable, deadlineExceeded,
            retryAfterTooLong, retryBudgetExhausted
    }

    let kind: Kind
    /// The name as written in Swift, such as "notRetryable".
    public var description: String { kind.rawValue }

    /// The failure is not one the policy retries.
    public static let notRetryable = Self(kind: .notRetryable)

    /// The last allowed attempt failed (or the backoff returned `nil`).
    public static let attemptsExhausted = Self(kind: .attemptsExhausted)

    /// The method is not in ``RetryPolicy/retryableMethods``.
    public static let methodNotRetryable = Self(kind: .methodNotRetryable)

    /// The body can only be sent once.
    public static let bodyNotReplayable = Self(kind: .bodyNotReplayable)

    /// Waiting would pass the deadline.
    public static let deadlineExceeded = Self(kind: .deadlineExceeded)

    /// The server's `Retry-After` is longer than ``RetryPolicy/maxRetryAfter``.
    public static let retryAfterTooLong = Self(kind: .retryAfterTooLong)

    /// A retry was due, but the policy's retry budget (CourierResilience's `RetryBudget`) is spent:
    /// retries already added their share to the calls of the window.
    public static let retryBudgetExhausted = Self(kind: .retryBudgetExhausted)
}

extension RetryPolicy {
    /// Decides what happens after attempt number `attempt` (1-based) failed.
    ///
    /// Checks, in order: cancellation and retryability, attempts left, the
    /// method (skipped when no connection was made: nothing was sent, or when
    /// the request carries an idempotency key), body
    /// replayability, the delay (backoff with jitter, or
    /// `Retry-After` when longer and within ``maxRetryAfter``), the deadline.
    ///
    /// - Parameters:
    ///   - failure: The attempt's error.
    ///   - attempt: Which attempt failed, from 1.
    ///   - method: The request's method.
    ///   - bodyIsReplayable: Whether the body can be sent again (`true` without a body).
    ///   - elapsed: Time since the first attempt started.
    ///   - now: The wall-clock date, for `Retry-After` dates.
    ///   - carriesIdempotencyKey: Whether the request has the
    ///     ``idempotencyKeyField`` header: then any method may be retried.
    /// - Returns: Retry after a delay, or stop with a reason.
    public func decide(
        after failure: CourierError,
        attempt: Int,
        method: HTTPRequest.Method,
        bodyIsReplayable: Bool,
        elapsed: Duration,
        now: Date,
        carriesIdempotencyKey: Bool = false
    ) -> RetryDecision {
        guard failure.code != .cancelled, isRetryable(failure) else { return .stop(.notRetryable) }
        guard attempt < maxAttempts else { return .stop(.attemptsExhausted) }
        guard
            retryableMethods.contains(method) || Self.nothingWasSent(failure)
                || (carriesIdempotencyKey && idempotencyKeyField != nil)
        else {
            return .stop(.methodNotRetryable)
        }
        guard bodyIsReplayable else { return .stop(.bodyNotReplayable) }
        guard let base = backoff.delay(attempt - 1) else { return .stop(.attemptsExhausted) }
        var delay = jitter.apply(base)
        if honorsRetryAfter, let value = failure.response?.head.headerFields[.retryAfter],
            let asked = RetryAfter.delay(from: value, now: now)
        {
            guard asked <= maxRetryAfter else { return .stop(.retryAfterTooLong) }
            delay = max(delay, asked)
        }
        if let deadline, elapsed + delay >= deadline { return .stop(.deadlineExceeded) }
        return .retry(after: delay)
    }

    /// Whether the failed attempt certainly sent nothing (no connection was
    /// made, or none was free), so that even a non-idempotent request may go again.
    public static func nothingWasSent(_ failure: CourierError) -> Bool {
        guard let transport = failure.underlying as? TransportError else { return false }
        return transport.code == .connectionFailed || transport.code == .dnsFailure
            || transport.code == .connectionUnavailable
    }

    /// Whether a failure is one this policy retries, before attempts, method,
    /// body and deadline are considered.
    public func isRetryable(_ failure: CourierError) -> Bool {
        // Cancellation, a concurrency policy's verdict and a credential that
        // changed under a shared call are never retried, whatever `retryIf`
        // says: retrying would undo what they decided.
        if failure.code == .cancelled || failure.code == .cancelledByPolicy
            || failure.code == .ignoredByPolicy || failure.code == .credentialMismatch
        {
            return false
        }
        if let retryIf { return retryIf(failure) }
        switch failure.code {
        case .transport, .timedOut:
            guard let transport = failure.underlying as? TransportError else {
                return failure.code == .timedOut && retryableTransportErrors.contains(.timedOut)
            }
            return retryableTransportErrors.contains(transport.code)
        case .status:
            return failure.response.map { retryableStatusCodes.contains($0.statusCode) } ?? false
        case .envelope:
            return failure.businessFailure.map { retryableBusinessCodes.contains($0.code) } ?? false
        default:
            return false
        }
    }
}
