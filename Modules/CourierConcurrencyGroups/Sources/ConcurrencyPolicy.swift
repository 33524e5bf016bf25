@_spi(Locking) import CourierCore

/// How a call behaves towards the other calls of its ``ConcurrencyGroup``.
///
/// "Running" means an attempt of a call of the group is on the network now:
/// a call waiting for its retry delay, or queued by ``wait(priority:)``,
/// does not count. Every attempt — the first, every retry, every `next` a
/// per-call interceptor makes — asks the policy again.
///
/// ```swift
/// let cart = ConcurrencyGroup("cart")
/// let add = Endpoint<Cart>(.post("cart/items"), on: .api)
///     .concurrency(.wait(priority: .high), in: cart)
/// ```
public struct ConcurrencyPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The policies, for the group's rules (an open set to users: a new one may come).
    enum Kind: Sendable, Hashable {
        case `default`, cancelOthers, ignoreCurrent
        case wait(ConcurrencyPriority, newestFirst: Bool)
    }

    let kind: Kind

    /// Runs at once and counts as running (the default): it may overtake
    /// queued ``wait(priority:)`` calls, and while it runs it holds them back
    /// and makes ``ignoreCurrent`` calls fail.
    public static let `default` = ConcurrencyPolicy(kind: .default)
    /// Ends every other call of the group — queued, waiting for a retry, or
    /// running (its transfer is stopped) — with
    /// ``/CourierCore/CourierError/Code/cancelledByPolicy``, then runs. The calls it ends
    /// are never retried: a call the policy ended stays ended.
    public static let cancelOthers = ConcurrencyPolicy(kind: .cancelOthers)
    /// Fails at once with ``/CourierCore/CourierError/Code/ignoredByPolicy`` while any
    /// call of the group runs, otherwise runs; never retried. A user tapping
    /// "refresh" twice sends one request, and the second tap gets a clear answer.
    public static let ignoreCurrent = ConcurrencyPolicy(kind: .ignoreCurrent)

    /// Runs when nothing in the group runs; otherwise queues. After each
    /// attempt that ends, one queued call starts, if nothing else runs:
    /// the highest priority first; within a priority, first attempts before
    /// retries (a retried call yields to fresh ones), and first
    /// come first served.
    public static func wait(priority: ConcurrencyPriority) -> ConcurrencyPolicy {
        ConcurrencyPolicy(kind: .wait(priority, newestFirst: false))
    }

    /// As ``wait(priority:)``, but the newest call starts first among the
    /// queued calls of its priority (a stack): when only the latest request
    /// matters — the detail page the user opened last — it is not kept
    /// behind the ones opened before it.
    public static func waitNewestFirst(priority: ConcurrencyPriority) -> ConcurrencyPolicy {
        ConcurrencyPolicy(kind: .wait(priority, newestFirst: true))
    }

    /// Queues behind everything that runs or
    /// waits, first come first served — ``wait(priority:)`` at the default priority.
    public static let waitUntilAllDone = ConcurrencyPolicy.wait(priority: .default)
    /// Waits for what runs, then starts before everything queued, the newest
    /// such call first — ``waitNewestFirst(priority:)`` at ``ConcurrencyPriority/high``.
    public static let waitWithHighPriority = ConcurrencyPolicy.waitNewestFirst(priority: .high)

    /// `default`, `cancelOthers`, `ignoreCurrent`, `wait(priority: n)` or
    /// `waitNewestFirst(priority: n)`.
    public var description: String {
        switch kind {
        case .default: "default"
        case .cancelOthers: "cancelOthers"
        case .ignoreCurrent: "ignoreCurrent"
        case .wait(let priority, false): "wait(priority: \(priority))"
        case .wait(let priority, true): "waitNewestFirst(priority: \(priority))"
        }
    }
}

/// The order queued ``ConcurrencyPolicy/wait(priority:)`` calls start in:
/// higher first. Any integer works (`.wait(priority: 5)`).
public struct ConcurrencyPriority: Sendable, Hashable, Comparable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The priority as a number; higher starts first.
    public let rawValue: Int

    /// A priority from a number; higher starts first.
    public init(_ rawValue: Int) { self.rawValue = rawValue }

    /// A priority from an integer literal.
    public init(integerLiteral value: Int) { self.rawValue = value }

    /// Starts after every other priority.
    public static let low = ConcurrencyPriority(Int.min)
    /// The default: 0.
    public static let `default` = ConcurrencyPriority(0)
    /// Starts before every other priority.
    public static let high = ConcurrencyPriority(Int.max)

    /// Orders by ``rawValue``.
    public static func < (lhs: ConcurrencyPriority, rhs: ConcurrencyPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `low`, `default`, `high` or the number.
    public var description: String {
        switch self {
        case .low: "low"
        case .default: "default"
        case .high: "high"
        default: "\(rawValue)"
        }
    }
}
