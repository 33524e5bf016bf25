public import CourierCore
public import HTTPTypes

extension Node {
    /// Where an attempt goes when the node's base URL cannot be reached: the
    /// alternates and their order (``Failover``); ``Failover/none`` by default.
    public var failover: Failover {
        get { attachments[Failover.self] ?? .none }
        set { attachments[Failover.self] = newValue.isEmpty ? nil : newValue }
    }

    /// Creates a node served by several base URLs, every environment alike:
    /// the first is the node's own, the others its ``failover``'s alternates.
    /// - Parameters:
    ///   - name: A name for logs and metrics.
    ///   - baseURLs: The servers, the node's own first; at least one.
    ///   - order: Which an attempt tries first (``Failover/Order``).
    ///   - headers: Headers sent with every request to this node.
    ///   - envelope: The envelope its responses are wrapped in, if any.
    public init(
        _ name: String, baseURLs: [String], failover order: Failover.Order, headers: HTTPFields = [:],
        envelope: EnvelopeFormat? = nil
    ) {
        self.init(name, baseURL: baseURLs.first ?? "", headers: headers, envelope: envelope)
        failover = Failover(alternates: [.production: Array(baseURLs.dropFirst())], order: order)
    }
}
