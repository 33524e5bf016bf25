@_spi(Locking) public import CourierCore
import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Stops sending to a host that keeps failing, and tries it again later
/// with a few probes: a circuit breaker per origin (`scheme://host:port`),
/// shared by every client configured with it
/// (`configuration.circuitBreaker`).
///
/// Closed, attempts go through and their outcomes are counted over
/// ``Configuration/window``; once at least ``Configuration/minimumCalls``
/// ended there and ``Configuration/failureRateThreshold`` of them failed,
/// the circuit opens: for ``Configuration/openDuration`` every attempt to
/// that origin fails at once with `CourierError.Code.circuitOpen`, nothing
/// sent, the error saying until when (``CircuitOpenError``). Then it lets
/// ``Configuration/halfOpenProbes`` attempts through: if they all succeed
/// it closes, if one fails it opens again. A failure is what says the
/// server is unwell: a transport failure (refused, reset, timed out) or a
/// 5xx or 429 answer — not a 404 or a business code, which are answers.
///
/// ```swift
/// let breaker = CircuitBreaker(.init(failureRateThreshold: 0.5, minimumCalls: 20, openDuration: .seconds(30)))
/// let client = APIClient(configuration: .init(transport: CurlTransport.shared, circuitBreaker: breaker))
/// ```
///
/// The retry policy does not retry `circuitOpen`: a retry would only meet
/// the open circuit again. The breaker reads its own clock (a `TestClock` in tests).
public final class CircuitBreaker: Sendable {
    /// When a circuit opens, for how long, and how it is tested again.
    public struct Configuration: Sendable {
        /// The share of outcomes in the window that must be failures to open (0.5: half).
        public var failureRateThreshold: Double
        /// Outcomes the window must hold before the rate counts at all.
        public var minimumCalls: Int
        /// How far back outcomes count.
        public var window: Duration
        /// How long an open circuit refuses attempts before probing.
        public var openDuration: Duration
        /// Attempts let through half-open; all must succeed to close.
        public var halfOpenProbes: Int
        /// Which failed attempts count as the server failing; by default
        /// ``CircuitBreaker/countsAsFailure(_:)``.
        public var countsAsFailure: @Sendable (CourierError) -> Bool

        /// Creates a configuration; every argument has a default.
        public init(
            failureRateThreshold: Double = 0.5, minimumCalls: Int = 20, window: Duration = .seconds(30),
            openDuration: Duration = .seconds(30), halfOpenProbes: Int = 1,
            countsAsFailure: @escaping @Sendable (CourierError) -> Bool = CircuitBreaker.countsAsFailure
        ) {
            self.failureRateThreshold = min(1, max(0, failureRateThreshold))
            self.minimumCalls = max(1, minimumCalls)
            self.window = max(window, .milliseconds(10))
            self.openDuration = openDuration
            self.halfOpenProbes = max(1, halfOpenProbes)
            self.countsAsFailure = countsAsFailure
        }
    }

    /// Where an origin's circuit is.
    public enum State: Sendable, Equatable {
        /// Attempts go through.
        case closed
        /// Attempts fail with `CourierError.Code.circuitOpen` until this date.
        case open(until: Date)
        /// Probes test the origin; other attempts are refused meanwhile.
        case halfOpen
    }

    /// The settings.
    public let configuration: Configuration
    private let clock: any CourierClock
    private let circuits = Locked<[String: CircuitState]>([:])
    /// Where the circuits are shared with other processes (CourierFleet's);
    /// `nil` for this process alone.
    let shared: (any CircuitSharing)?

    /// Creates a breaker; its circuits start closed.
    /// - Parameters:
    ///   - configuration: When circuits open and how they are probed.
    ///   - clock: The clock; `SystemClock()` unless testing.
    public convenience init(_ configuration: Configuration = .init(), clock: any CourierClock = SystemClock())
    {
        self.init(configuration, clock: clock, shared: nil)
    }

    /// Creates a breaker whose circuits are shared through `shared`.
    package init(_ configuration: Configuration, clock: any CourierClock, shared: (any CircuitSharing)?) {
        self.configuration = configuration
        self.clock = clock
        self.shared = shared
    }

    /// The circuit of `origin` (`scheme://host:port` as the request names it).
    public func state(of origin: String) -> State {
        let now = clock.now
        let phase = circuits.withLock { $0[origin]?.phase } ?? .closed
        switch phase {
        case .closed: return .closed
        case .open(let until) where now < until: return .open(until: date(at: until, now: now))
        case .open, .halfOpen: return .halfOpen
        }
    }

    /// Transport failures (not cancellation, not `offline`: nothing was
    /// sent) and answers 5xx and 429.
    public static func countsAsFailure(_ error: CourierError) -> Bool {
        if let status = error.response?.statusCode { return isFailure(status: status) }
        return error.code == .transport || error.code == .timedOut
    }

    /// 5xx and 429: the server says it is unwell or overloaded.
    private static func isFailure(status: Int) -> Bool { status >= 500 || status == 429 }

    // MARK: - The pipeline's side

    /// An attempt to `origin` asks to go.
    /// - Throws: `CourierError.Code.circuitOpen` when the circuit refuses it.
    func admit(_ origin: String, request: HTTPRequest, attempt: Int) throws(CourierError)
        -> CircuitState.Permit
    {
        let now = clock.now
        let (permit, phase) = circuits.withLock { circuits in
            let permit = circuits[origin, default: CircuitState(window: configuration.window)].admit(
                now: now, configuration)
            return (permit, circuits[origin]?.phase)
        }
        if let permit { return permit }
        var until: Date?
        var message = "the circuit for \(origin) is half-open: its probes are testing it; nothing was sent"
        if case .open(let end)? = phase {
            until = date(at: end, now: now)
            message = "the circuit for \(origin) is open for \(end - now) more; nothing was sent"
        }
        throw CourierError(
            .circuitOpen, stage: .transport, message: message, request: request, attempt: attempt,
            underlying: CircuitOpenError(origin: origin, until: until))
    }

    /// The fleet has `origin`'s circuit open for `remaining`: a closed
    /// circuit here opens until then too.
    func adopt(_ origin: String, openFor remaining: Duration) {
        let until = clock.now + remaining
        circuits.withLock {
            $0[origin, default: CircuitState(window: configuration.window)].adopt(openUntil: until)
        }
    }

    /// An admitted attempt ended with `outcome`.
    /// - Returns: What it said of the server: failed, answered, or nothing
    ///   (`nil`: cancelled, offline).
    @discardableResult
    func record(_ origin: String, _ permit: CircuitState.Permit, _ outcome: Result<RawResponse, CourierError>)
        -> Bool?
    {
        let failed: Bool?
        switch outcome {
        case .success(let response):
            failed = Self.isFailure(status: response.statusCode)
        case .failure(let error) where [.cancelled, .cancelledByPolicy, .offline].contains(error.code):
            failed = nil  // nothing learnt about the server
        case .failure(let error):
            // A failure; else an answer (a 404, a business code) is a success;
            // else nothing was learnt (a request that could not be built).
            if configuration.countsAsFailure(error) {
                failed = true
            } else {
                failed = error.response == nil ? nil : false
            }
        }
        let now = clock.now
        circuits.withLock { $0[origin]?.record(permit, failed: failed, now: now, configuration) }
        return failed
    }

    private func date(at instant: Duration, now: Duration) -> Date {
        clock.date.addingTimeInterval((instant - now).seconds)
    }
}

/// Why an attempt failed with `CourierError.Code.circuitOpen`: the
/// ``/CourierCore/CourierError/underlying`` error. A node with a
/// ``Failover`` sends such an attempt to its next base URL.
public struct CircuitOpenError: Error, Sendable, Hashable {
    /// The origin whose circuit refused the attempt.
    public let origin: String
    /// When the circuit lets a probe through; `nil` while probes run (half-open).
    public let until: Date?
}
