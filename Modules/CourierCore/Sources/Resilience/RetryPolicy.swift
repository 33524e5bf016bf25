public import HTTPTypes

/// When and how often a failed attempt is tried again.
///
/// A policy retries an attempt when its failure is retryable (a listed
/// transport error, status code or business code), the method is idempotent,
/// the body can be sent again, attempts remain and the deadline allows the
/// wait. The wait is the backoff (with jitter), or the server's `Retry-After`
/// when that is longer.
///
/// ```swift
/// .standard                                           // 3 attempts, 0.5 s × 2ⁿ, full jitter
/// RetryPolicy(maxAttempts: 5, deadline: .seconds(20))
/// .delays(maxAttempts: 4) { retry in [.seconds(5), .seconds(5), .seconds(10)][retry] }
/// ```
///
/// The decision itself is ``decide(after:attempt:method:bodyIsReplayable:elapsed:now:carriesIdempotencyKey:)``:
/// a pure function, tested without I/O; the clock is injected into the client.
public struct RetryPolicy: Sendable {
    /// Attempts in total, the first included; 1 means never retry.
    public var maxAttempts: Int
    /// The base delay before each retry.
    public var backoff: Backoff
    /// Randomisation applied to the backoff.
    public var jitter: Jitter
    /// Status codes worth another attempt.
    public var retryableStatusCodes: Set<Int>
    /// Transport failures worth another attempt.
    public var retryableTransportErrors: Set<TransportError.Code>
    /// Envelope business codes worth another attempt (none by default).
    public var retryableBusinessCodes: Set<EnvelopeCode>
    /// Methods that may be retried: idempotent ones by default. Any method may
    /// be retried after a failure to connect, when nothing was sent.
    public var retryableMethods: Set<HTTPRequest.Method>
    /// Whether `Retry-After` on a failed response sets the wait.
    public var honorsRetryAfter: Bool
    /// The longest `Retry-After` honoured; a longer one stops retrying.
    public var maxRetryAfter: Duration
    /// The time budget across all attempts and waits, from the first attempt.
    public var deadline: Duration?
    /// Replaces the built-in "is this failure retryable" test when set.
    public var retryIf: (@Sendable (CourierError) -> Bool)?
    /// The header that makes a non-idempotent request safe to send again: a
    /// POST or PATCH carrying it is retried like an idempotent method (the
    /// server deduplicates by the key; the key is the same on every attempt,
    /// since attempts resend the same request). `Idempotency-Key` by default,
    /// as Stripe and the IETF draft name it; `nil` turns this off.
    public var idempotencyKeyField: HTTPField.Name?
    /// How much retries may add to the load, shared by every call whose
    /// policy carries the same allowance (CourierResilience's
    /// `RetryPolicy.budget`); `nil` (none) by default. A retry it refuses
    /// stops with ``RetryStopReason/retryBudgetExhausted``.
    package var allowance: (any RetryAllowance)?

    /// `Idempotency-Key`.
    public static let defaultIdempotencyKeyField = HTTPField.Name("Idempotency-Key")

    /// GET, HEAD, PUT, DELETE, OPTIONS and TRACE: safe to send twice (RFC 9110 §9.2.2).
    public static let idempotentMethods: Set<HTTPRequest.Method> = [
        .get, .head, .put, .delete, .options, .trace,
    ]
    /// 408 Request Timeout, 429 Too Many Requests, 500, 502, 503 and 504: the
    /// server is overloaded or a gateway failed; the same request may succeed.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// Failures where the request may not have been processed, or a new
    /// connection may work: connect failures, resets, empty responses,
    /// timeouts, and a timeout spent waiting for a connection to a busy host.
    /// DNS, TLS and protocol errors are not retried: they repeat.
    public static let defaultRetryableTransportErrors: Set<TransportError.Code> = [
        .connectionFailed, .connectionReset, .emptyResponse, .timedOut, .connectionUnavailable,
    ]

    /// Creates a policy; every argument has a documented default.
    public init(
        maxAttempts: Int = 3,
        backoff: Backoff = .exponential(),
        jitter: Jitter = .full,
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        retryableTransportErrors: Set<TransportError.Code> = RetryPolicy.defaultRetryableTransportErrors,
        retryableBusinessCodes: Set<EnvelopeCode> = [],
        retryableMethods: Set<HTTPRequest.Method> = RetryPolicy.idempotentMethods,
        honorsRetryAfter: Bool = true,
        maxRetryAfter: Duration = .seconds(120),
        deadline: Duration? = nil,
        retryIf: (@Sendable (CourierError) -> Bool)? = nil,
        idempotencyKeyField: HTTPField.Name? = RetryPolicy.defaultIdempotencyKeyField
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.backoff = backoff
        self.jitter = jitter
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableTransportErrors = retryableTransportErrors
        self.retryableBusinessCodes = retryableBusinessCodes
        self.retryableMethods = retryableMethods
        self.honorsRetryAfter = honorsRetryAfter
        self.maxRetryAfter = maxRetryAfter
        self.deadline = deadline
        self.retryIf = retryIf
        self.idempotencyKeyField = idempotencyKeyField
    }

    /// Never retry.
    public static let never = RetryPolicy(maxAttempts: 1)
    /// Three attempts, exponential backoff from 0.5 s doubling to at most 30 s,
    /// full jitter, `Retry-After` honoured, idempotent methods only (and any
    /// method carrying an `Idempotency-Key`).
    public static let standard = RetryPolicy()

    /// Retries any retryable failure up to `maxAttempts`
    /// in total with the standard backoff.
    public static func retryIfFailed(maxAttempts: Int = 3) -> RetryPolicy {
        RetryPolicy(maxAttempts: maxAttempts)
    }

    /// A delay chosen per retry: `delay(0)` before the first retry, `delay(1)`
    /// before the second, …; returning `nil` stops retrying. No jitter.
    public static func delays(
        maxAttempts: Int, _ delay: @escaping @Sendable (_ retryIndex: Int) -> Duration?
    ) -> RetryPolicy {
        RetryPolicy(maxAttempts: maxAttempts, backoff: .custom(delay), jitter: .none)
    }
}

extension RetryPolicy {
    /// The base delay before a retry, by retry index (0 before the first retry).
    public struct Backoff: Sendable {
        let delay: @Sendable (Int) -> Duration?

        /// `initial × multiplierⁿ`, never more than `cap`.
        public static func exponential(
            initial: Duration = .milliseconds(500), multiplier: Double = 2, cap: Duration = .seconds(30)
        ) -> Backoff {
            Backoff { index in
                let factor = Foundationless.power(multiplier, index)
                let seconds = min(initial.seconds * factor, cap.seconds)
                return .nanoseconds(Int64((max(0, seconds) * 1e9).rounded()))
            }
        }

        /// The same delay every time.
        public static func constant(_ delay: Duration) -> Backoff { Backoff { _ in delay } }

        /// Your own delay per retry index; `nil` stops retrying.
        public static func custom(_ delay: @escaping @Sendable (Int) -> Duration?) -> Backoff {
            Backoff(delay: delay)
        }
    }

    /// Randomisation of the backoff, so that clients that failed together do
    /// not retry together.
    public struct Jitter: Sendable {
        let apply: @Sendable (Duration) -> Duration

        /// The delay as computed.
        public static let none = Jitter { $0 }
        /// A uniformly random delay between zero and the computed one ("full jitter").
        public static let full = Jitter.full(random: { Double.random(in: 0...1) })

        /// Full jitter drawing from `random`, which returns a number in 0...1.
        public static func full(random: @escaping @Sendable () -> Double) -> Jitter {
            Jitter { delay in .nanoseconds(Int64((delay.seconds * min(1, max(0, random())) * 1e9).rounded()))
            }
        }
    }
}

/// Small numeric helpers that need no Foundation.
enum Foundationless {
    /// `base` raised to a small non-negative integer power, saturating at infinity.
    static func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<max(0, min(exponent, 1024)) {
            result *= base
            if result.isInfinite { break }
        }
        return result
    }
}
