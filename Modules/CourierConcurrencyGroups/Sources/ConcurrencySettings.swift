public import CourierCore

/// What a client's configuration keeps for its ``ConcurrencyGroup``: the
/// group every call joins, with the default policy, unless its endpoint
/// says otherwise (``EndpointConcurrency``, which then chooses the steps).
struct ClientConcurrencyGroup: ClientExtension {
    var group: ConcurrencyGroup

    func attemptSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration)
        -> [(slot: AttemptSlot, step: any AttemptStep)]
    {
        spec.attachments[EndpointConcurrency.Key.self] == nil ? [(.groupAdmission, GroupAdmissionStep())] : []
    }

    func passSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration) -> [any PassStep] {
        spec.attachments[EndpointConcurrency.Key.self] == nil
            ? [GroupMembershipStep(group: group, policy: nil)] : []
    }
}

/// What an endpoint keeps: its policy, and the group its calls join instead
/// of the client's. Attached to the endpoint, it chooses the group's steps
/// for the endpoint's calls whether or not the client has a group.
struct EndpointConcurrency: ClientExtension {
    enum Key: EndpointAttachmentKey { typealias Value = EndpointConcurrency }

    var policy: ConcurrencyPolicy?
    var group: ConcurrencyGroup?

    func attemptSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration)
        -> [(slot: AttemptSlot, step: any AttemptStep)]
    { [(.groupAdmission, GroupAdmissionStep())] }

    func passSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration) -> [any PassStep] {
        let group = group ?? configuration[extension: ClientConcurrencyGroup.self]?.group
        return [GroupMembershipStep(group: group, policy: policy)]
    }
}

extension APIClient.Configuration {
    /// The ``ConcurrencyGroup`` every call of this client joins, with its
    /// endpoint's ``ConcurrencyPolicy`` (``ConcurrencyPolicy/default``
    /// unless the endpoint sets one); `nil` (no group) by default.
    /// Several clients may share a group.
    public var concurrencyGroup: ConcurrencyGroup? {
        get { self[extension: ClientConcurrencyGroup.self]?.group }
        set { self[extension: ClientConcurrencyGroup.self] = newValue.map(ClientConcurrencyGroup.init) }
    }
}

extension EndpointSpec {
    /// How this endpoint's calls behave towards the other calls of their
    /// ``ConcurrencyGroup``; `nil` is ``ConcurrencyPolicy/default``. A policy
    /// needs a group: this endpoint's, or the client's.
    public var concurrencyPolicy: ConcurrencyPolicy? {
        get { attachments[EndpointConcurrency.Key.self]?.policy }
        set { concurrency { $0.policy = newValue } }
    }

    /// The group this endpoint's calls join instead of the client's
    /// (`APIClient.Configuration.concurrencyGroup`).
    public var concurrencyGroup: ConcurrencyGroup? {
        get { attachments[EndpointConcurrency.Key.self]?.group }
        set { concurrency { $0.group = newValue } }
    }

    private mutating func concurrency(_ change: (inout EndpointConcurrency) -> Void) {
        var value = attachments[EndpointConcurrency.Key.self] ?? EndpointConcurrency()
        change(&value)
        attachments[EndpointConcurrency.Key.self] = value.policy == nil && value.group == nil ? nil : value
    }
}

extension Endpoint {
    /// A copy whose calls follow `policy` in `group` — or, without one, in
    /// the client's `APIClient.Configuration.concurrencyGroup`
    /// (a call with a policy and no group anywhere fails with
    /// ``/CourierCore/CourierError/Code/invalidRequest``).
    ///
    /// ```swift
    /// let search = Endpoint<[Item]>(.get("search"), on: .api).concurrency(.cancelOthers, in: typing)
    /// ```
    public func concurrency(_ policy: ConcurrencyPolicy, in group: ConcurrencyGroup? = nil) -> Endpoint {
        var copy = self
        copy.spec.concurrencyPolicy = policy
        if let group { copy.spec.concurrencyGroup = group }
        return copy
    }
}
