import HTTPTypes

/// Whose a pass's response is, beyond what its request carries when the
/// response cache and coalescing see it: what the components that act
/// after them — per-attempt interceptors, then plugins' `prepare` — declare
/// they add (``CredentialIdentity``).
///
/// The rule, in one place: the cache key and the coalescing key are made of
/// the request as the per-call chain leaves it (its credential fields
/// included), the cookie jar's cookies for it, and this identity. A pass
/// whose identity is ``undeclared(by:)`` is neither cached nor coalesced.
/// A pass where every later component declared ``CredentialIdentity/none``
/// must reach the transport with the credential fields it was keyed with
/// (``checkUnchanged(_:against:_:)``): otherwise a component lied, and
/// nothing is sent. A component that declared a principal is held to it by
/// its own hook, which sees its declaration (``CallContext/declaredCredential``).
package enum PassIdentity: Sendable, Equatable {
    /// Every later component declared: the digest of the principals they
    /// add, in their order (`nil` when none adds one), and each component's
    /// declaration — the per-attempt interceptors', then the plugins'.
    case declared(String?, each: [CredentialIdentity])
    /// This component may change credentials and did not say whose.
    case undeclared(by: String)

    /// The declarations of a pass's per-attempt interceptors and plugins.
    /// - Throws: What a component's ``CredentialDeclaring/credentialIdentity(for:)``
    ///   threw, as its own hook's error would be (naming it).
    nonisolated(nonsending) static func of(_ settings: CallSettings, _ context: CallContext)
        async throws(CourierError)
        -> PassIdentity
    {
        var principals: [String] = []
        var each: [CredentialIdentity] = []
        let components: [any CredentialDeclaring] =
            settings.attemptInterceptors.map { $0 } + settings.plugins.map { $0 }
        each.reserveCapacity(components.count)
        for component in components {
            let identity: CredentialIdentity
            do {
                identity = try await component.credentialIdentity(for: context)
            } catch {
                throw ErrorMapping.raised(
                    error, by: component, code: .interceptor, stage: .interception,
                    what: "credential declaration")
            }
            each.append(identity)
            switch identity {
            case .none: continue
            case .principal(let name): principals.append(componentName(of: component) + "\n" + name)
            case .undeclared: return .undeclared(by: componentName(of: component))
            }
        }
        guard !principals.isEmpty else { return .declared(nil, each: each) }
        return .declared(SHA256.hex(Array(principals.joined(separator: "\n").utf8)), each: each)
    }

    /// A pass that nothing after the cache and coalescing adds a credential to.
    package static let addsNothing = PassIdentity.declared(nil, each: [])

    /// The digest of the declared principals; `nil` when none, or undeclared.
    package var principals: String? {
        if case .declared(let digest, _) = self { return digest }
        return nil
    }

    /// Whether every later component declared that it adds no credential.
    var addsNoCredential: Bool {
        if case .declared(nil, _) = self { return true }
        return false
    }

    /// What the component at `index` declared (per-attempt interceptors
    /// first, then plugins), when the pass is shared.
    func declaration(at index: Int) -> CredentialIdentity? {
        guard case .declared(_, let each) = self, each.indices.contains(index) else { return nil }
        return each[index]
    }

    /// The component that did not declare, if one did not.
    package var undeclaredBy: String? {
        if case .undeclared(let name) = self { return name }
        return nil
    }

    /// Whether the pass may be shared (cached, coalesced) at all.
    package var isDeclared: Bool {
        if case .declared = self { return true }
        return false
    }

    /// Holds a pass whose later components all declared ``CredentialIdentity/none``
    /// to it: the head about to be sent must carry the credential fields of
    /// `keyed`, the request the cache and coalescing saw.
    /// - Throws: ``CourierError/Code/invalidRequest`` naming the fields that
    ///   changed, when they did; nothing is sent.
    static func checkUnchanged(
        _ head: HTTPRequest, against keyed: HTTPRequest, _ credentials: CredentialFields
    ) throws(CourierError) {
        guard credentials.lines(head.headerFields) != credentials.lines(keyed.headerFields) else { return }
        let changed = credentials.changed(head.headerFields, keyed.headerFields)
        var error = CourierError(
            .invalidRequest, stage: .interception,
            message:
                "the \(changed.joined(separator: ", ")) field changed after the response cache or coalescing "
                + "keyed the call, but every per-attempt interceptor and plugin declares that it adds no "
                + "credential (CredentialIdentity.none); declare what it adds with "
                + "credentialIdentity(for:): nothing was sent")
        error.request = head
        throw error
    }
}
