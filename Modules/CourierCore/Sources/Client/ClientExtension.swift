/// What a satellite module (CourierResilience, CourierCache…) keeps on a
/// client's configuration, and the steps it adds to the client's calls:
/// the seam through which families of features live outside CourierCore.
/// Package-level: an app sets a satellite's public properties on
/// ``APIClient/Configuration``, which store one of these.
package protocol ClientExtension: Sendable {
    /// The attempt steps this extension adds to calls of `spec` under
    /// `configuration`, each in its ``AttemptSlot``; none when it is off.
    func attemptSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration)
        -> [(slot: AttemptSlot, step: any AttemptStep)]
}

extension APIClient.Configuration {
    /// The extension of type `type` this configuration holds, if any.
    package subscript<Extension: ClientExtension>(extension type: Extension.Type) -> Extension? {
        get { extensions[ObjectIdentifier(type)] as? Extension }
        set { extensions[ObjectIdentifier(type)] = newValue }
    }
}
