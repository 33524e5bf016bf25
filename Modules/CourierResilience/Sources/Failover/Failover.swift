@_spi(Locking) public import CourierCore
import Synchronization

/// More than one server for a node: where an attempt goes when the one it
/// was meant for cannot be reached.
///
/// A node names its base URL per environment (``/CourierCore/Node/urls``);
/// a failover adds alternates (`Node.failover`). An attempt
/// that cannot connect to its server (no name, no connection, no connection
/// free — ``/CourierCore/RetryPolicy/nothingWasSent(_:)``) or whose
/// origin's circuit is open (``CircuitBreaker``) is sent to the next base
/// URL at once, within the same attempt: its deadline and the client's
/// retry budget still hold (each move spends a retry from the budget), and
/// event monitors hear each move
/// (``/CourierCore/CallEvent/Kind/failedOver(from:to:failure:)``). A failure after the
/// request may have reached a server — a reset, a timeout, any response —
/// never moves, whatever the method: a POST goes to a second server only
/// when the first certainly never saw it. What the retry policy does with
/// the attempt's final failure is unchanged.
///
/// ```swift
/// let api = Node(
///     "api", baseURLs: ["https://eu.api.example.com/v1", "https://us.api.example.com/v1"],
///     failover: .primaryFirst)
/// ```
public struct Failover: Sendable, Hashable, NodeAttachment, ClientExtension {
    /// Which base URL an attempt tries first.
    public enum Order: Sendable, Hashable {
        /// The node's own URL, then the alternates in order: a primary with
        /// standbys.
        case primaryFirst
        /// Each attempt starts one further along the list than the one
        /// before (the node's own URL, then the alternates, then around):
        /// peers sharing the load.
        case roundRobin
    }

    /// The base URLs tried after the node's own, per environment; an
    /// environment served by a node's single production URL uses
    /// `.production`'s.
    public var alternates: [ServerEnvironment: [String]]
    /// Which URL an attempt tries first.
    public var order: Order
    /// The turn a round-robin node's next attempt starts at: shared by
    /// every copy of the failover, not part of its value.
    private let turn = Turn()

    /// Creates a failover.
    /// - Parameters:
    ///   - alternates: The base URLs to try after the node's own, per environment.
    ///   - order: Which URL an attempt tries first.
    public init(alternates: [ServerEnvironment: [String]], order: Order = .primaryFirst) {
        self.alternates = alternates
        self.order = order
    }

    /// No alternates: every attempt goes to the node's own URL.
    public static let none = Failover(alternates: [:])

    /// Equal when the alternates and the order are.
    public static func == (lhs: Failover, rhs: Failover) -> Bool {
        lhs.alternates == rhs.alternates && lhs.order == rhs.order
    }

    /// Hashes the alternates and the order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(alternates)
        hasher.combine(order)
    }

    /// Whether any environment has an alternate.
    var isEmpty: Bool { alternates.values.allSatisfy(\.isEmpty) }

    /// The base URLs an attempt in `environment` tries, in order, when the
    /// node's own is `primary`; one URL when there is nothing to move to.
    /// - Throws: `CourierError.Code.invalidRequest` for an alternate that
    ///   is not an http(s) URL with a host.
    func candidates(primary: BaseURL, environment: ServerEnvironment, node: String) throws(CourierError)
        -> [BaseURL]
    {
        let given = alternates[environment] ?? alternates[.production] ?? []
        var bases = [primary]
        for alternate in given {
            guard let parsed = BaseURL(alternate) else {
                throw CourierError(
                    .invalidRequest, stage: .build,
                    message:
                        "node \(node) has an invalid failover URL \"\(Redaction.standard.url(alternate))\" "
                        + "(need http:// or https:// and an ASCII host name or IP address)")
            }
            if !bases.contains(parsed) { bases.append(parsed) }
        }
        guard order == .roundRobin, bases.count > 1 else { return bases }
        let start = turn.next() % bases.count
        return Array(bases[start...] + bases[..<start])
    }

    /// Whether an attempt that failed with `failure` moves to the next base
    /// URL: only when nothing reached a server.
    static func movesOn(after failure: CourierError) -> Bool {
        RetryPolicy.nothingWasSent(failure) || failure.code == .circuitOpen
    }

    /// The failover's step, in every call of an endpoint on its node.
    package func attemptSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration)
        -> [(slot: AttemptSlot, step: any AttemptStep)]
    {
        isEmpty ? [] : [(.failover, FailoverStep())]
    }

    /// A counter every copy shares.
    private final class Turn: Sendable {
        private let value = Atomic<Int>(0)
        func next() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue & Int.max }
    }
}
