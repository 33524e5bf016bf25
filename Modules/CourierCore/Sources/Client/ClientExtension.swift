/// What a satellite module (CourierResilience, CourierCache…) keeps on a
/// client's configuration, and the steps it adds to the client's calls:
/// the seam through which families of features live outside CourierCore.
/// Package-level: an app sets a satellite's public properties on
/// ``APIClient/Configuration``, which store one of these.
///
/// An endpoint's attachment (``EndpointAttachments``) may be one too: its
/// steps are chosen for that endpoint's calls whatever the client holds,
/// and it replaces the client's extension of the same type for them (it
/// may read that one through the configuration).
package protocol ClientExtension: Sendable {
    /// The attempt steps this extension adds to calls of `spec` under
    /// `configuration`, each in its ``AttemptSlot``; none when it is off.
    func attemptSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration)
        -> [(slot: AttemptSlot, step: any AttemptStep)]

    /// The steps this extension adds to each pass of calls of `spec` (and
    /// of streams): what it joins for the call and lets go of when the call
    /// ends (``PassStep``); none by default.
    func passSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration) -> [any PassStep]
}

extension ClientExtension {
    package func passSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration)
        -> [any PassStep]
    { [] }
}

extension CallSettings {
    /// The extensions that add steps to calls of `spec`: the client's, its
    /// node's, then the endpoint's own, each in a stable order; an
    /// endpoint's replaces the client's of the same type.
    static func contributors(_ spec: EndpointSpec, _ configuration: APIClient.Configuration)
        -> [any ClientExtension]
    {
        let endpoint = spec.attachments.stepContributors.sorted { $0.key < $1.key }.map(\.value)
        let node = spec.node.attachments.stepContributors.sorted { $0.key < $1.key }.map(\.value)
        let replaced = Set(endpoint.map { ObjectIdentifier(type(of: $0)) })
        let client = configuration.extensions.sorted { $0.key < $1.key }.map(\.value)
        return
            (replaced.isEmpty ? client : client.filter { !replaced.contains(ObjectIdentifier(type(of: $0))) })
            + node + endpoint
    }
}

extension APIClient.Configuration {
    /// The extension of type `type` this configuration holds, if any.
    package subscript<Extension: ClientExtension>(extension type: Extension.Type) -> Extension? {
        get { extensions[ObjectIdentifier(type)] as? Extension }
        set { extensions[ObjectIdentifier(type)] = newValue }
    }
}
