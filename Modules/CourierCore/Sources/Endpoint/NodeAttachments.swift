/// A value another Courier module keeps on a ``Node`` (a failover's
/// alternates): part of the node's value, so two nodes with different
/// attachments differ. One per type.
package protocol NodeAttachment: Sendable, Hashable {}

/// Values other Courier modules keep on a node without CourierCore knowing
/// their types, as ``EndpointAttachments`` are an endpoint's. Keyed by the
/// value's type. A value that is a ``ClientExtension`` adds its steps to the
/// calls of every endpoint on the node, whatever the client holds.
package struct NodeAttachments: Sendable, Hashable {
    private var values: [ObjectIdentifier: any NodeAttachment] = [:]
    /// The attached values that add steps to the node's calls, by their key.
    package private(set) var stepContributors: [ObjectIdentifier: any ClientExtension] = [:]

    /// No attachments.
    package init() {}

    /// The value of type `type`, or `nil`.
    package subscript<Value: NodeAttachment>(_ type: Value.Type) -> Value? {
        get { values[ObjectIdentifier(type)] as? Value }
        set {
            values[ObjectIdentifier(type)] = newValue
            stepContributors[ObjectIdentifier(type)] = newValue as? any ClientExtension
        }
    }

    /// Equal when both hold equal values of the same types.
    package static func == (lhs: NodeAttachments, rhs: NodeAttachments) -> Bool {
        lhs.values.count == rhs.values.count
            && lhs.values.allSatisfy { key, value in rhs.values[key].map { equal(value, $0) } ?? false }
    }

    private static func equal<Value: NodeAttachment>(_ value: Value, _ other: any NodeAttachment) -> Bool {
        (other as? Value) == value
    }

    /// Hashes the values in the order of their types.
    package func hash(into hasher: inout Hasher) {
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            hasher.combine(key)
            hasher.combine(value)
        }
    }
}
