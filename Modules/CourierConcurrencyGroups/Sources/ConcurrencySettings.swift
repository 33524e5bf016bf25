public import CourierCore

/// A group and a policy: on a client's configuration, the group every call
/// joins (with the default policy); attached to an endpoint, its policy and
/// the group its calls join instead — which then replaces the client's for
/// that endpoint's calls (`CallSettings.contributors`), reading the
/// client's group when it names none.
struct ConcurrencySettings: ClientExtension {
    enum Key: EndpointAttachmentKey { typealias Value = ConcurrencySettings }

    var group: ConcurrencyGroup?
    var policy: ConcurrencyPolicy?

    func attemptSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration)
        -> [(slot: AttemptSlot, step: any AttemptStep)]
    { [(.groupAdmission, GroupAdmissionStep())] }

    func passSteps(for spec: EndpointSpec, in configuration: APIClient.Configuration) -> [any PassStep] {
        [GroupMembershipStep(group: group ?? configuration[extension: Self.self]?.group, policy: policy)]
    }
}

extension APIClient.Configuration {
    /// The ``ConcurrencyGroup`` every call of this client joins, with its
    /// endpoint's ``ConcurrencyPolicy`` (``ConcurrencyPolicy/default``
    /// unless the endpoint sets one); `nil` (no group) by default.
    /// Several clients may share a group.
    public var concurrencyGroup: ConcurrencyGroup? {
        get { self[extension: ConcurrencySettings.self]?.group }
        set { self[extension: ConcurrencySettings.self] = newValue.map { ConcurrencySettings(group: $0) } }
    }
}

extension EndpointSpec {
    /// How this endpoint's calls behave towards the other calls of their
    /// ``ConcurrencyGroup``; `nil` is ``ConcurrencyPolicy/default``. A policy
    /// needs a group: this endpoint's, or the client's.
    public var concurrencyPolicy: ConcurrencyPolicy? {
        get { attachments[ConcurrencySettings.Key.self]?.policy }
        set { concurrency { $0.policy = newValue } }
    }

    /// The group this endpoint's calls join instead of the client's
    /// (`APIClient.Configuration.concurrencyGroup`).
    public var concurrencyGroup: ConcurrencyGroup? {
        get { attachments[ConcurrencySettings.Key.self]?.group }
        set { concurrency { $0.group = newValue } }
    }

    private mutating func concurrency(_ change: (inout ConcurrencySettings) -> Void) {
        var value = attachments[ConcurrencySettings.Key.self] ?? ConcurrencySettings()
        change(&value)
        attachments[ConcurrencySettings.Key.self] = value.policy == nil && value.group == nil ? nil : value
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
