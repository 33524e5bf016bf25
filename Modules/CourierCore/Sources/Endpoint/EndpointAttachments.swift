/// Values other Courier modules keep on an endpoint — the cache's policy
/// for it, say — without CourierCore knowing their types. Keyed by a type,
/// so two modules never collide. Package-level: each module puts a public
/// modifier of its own in front (`endpoint.cache(…)`).
package struct EndpointAttachments: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]
    /// The attached values that add steps to the endpoint's calls (a
    /// concurrency policy's), by their key: what makes the endpoint's
    /// settings its own (``EndpointSpec/overridesClientSettings``).
    package private(set) var stepContributors: [ObjectIdentifier: any ClientExtension] = [:]

    /// No attachments.
    package init() {}

    /// The value kept under `key`, or `nil`. A value that is a
    /// ``ClientExtension`` adds its steps to the endpoint's calls, even on
    /// a client that has none of that feature.
    package subscript<Key: EndpointAttachmentKey>(_ key: Key.Type) -> Key.Value? {
        get { values[ObjectIdentifier(key)] as? Key.Value }
        set {
            values[ObjectIdentifier(key)] = newValue
            stepContributors[ObjectIdentifier(key)] = newValue as? any ClientExtension
        }
    }

    /// The value kept under the key type `id` (`ObjectIdentifier(Key.self)`):
    /// not generic, so a hot path in another module reads it without
    /// instantiating generic metadata on every call (package-level generics
    /// are not specialised across modules).
    package func value(for id: ObjectIdentifier) -> (any Sendable)? {
        values.isEmpty ? nil : values[id]
    }

    /// Whether nothing is attached.
    package var isEmpty: Bool { values.isEmpty }
}

/// A key for ``EndpointAttachments``: a type of its own per kind of value.
package protocol EndpointAttachmentKey {
    /// The type of the value kept under this key.
    associatedtype Value: Sendable
}
