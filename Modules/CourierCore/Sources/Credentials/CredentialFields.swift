public import HTTPTypes

/// The header fields that say who is asking: the one list Courier keeps of
/// them, and the one place every question about them is answered.
///
/// A request that carries one of these fields is someone's, and so is its
/// response. Everything that shares or shows a request asks this type:
///
/// - the response cache's key and its rule that a credentialed response is
///   not stored unless the endpoint opts in (and then only under the
///   credential's digest), and the fields it never writes to a store;
/// - the coalescing key, so two principals' identical calls are two exchanges;
/// - a redirect to another origin, which drops every one of these fields;
/// - ``Redaction``, and so errors, logs, curl commands, span attributes and
///   metric labels, which never show their values.
///
/// The standard fields are `Authorization`, `Proxy-Authorization`, `Cookie`,
/// `Set-Cookie` (a response handing out a session), `X-API-Key`,
/// `X-Auth-Token`, `API-Key` and `X-Amz-Security-Token`. An API that puts its
/// credential in a field of its own declares it on the client, and then it
/// counts everywhere the standard ones do:
///
/// ```swift
/// var configuration = APIClient.Configuration(transport: CurlTransport.shared)
/// configuration.credentialFields = .standard.declaring(["X-Tenant-Secret"])
/// ```
///
/// Names are compared without case and without `-`, `_`, `.` and spaces, as
/// ``Redaction`` compares names: `X-Api-Key`, `x_api_key` and `XApiKey` are
/// one field. A header field that a plugin's ``Redaction`` hides (a
/// ``Redacting`` component's) is a credential of the calls it takes part in
/// too: a value too secret to log is someone's.
public struct CredentialFields: Sendable, Hashable {
    /// The fields as given: the standard ones, then the declared ones.
    public private(set) var names: [HTTPField.Name]
    /// ``names``, as names are compared (``Redaction/normalized(_:)``).
    private var compared: Set<String>

    /// The standard credential fields (see the type's documentation).
    public static let standard = CredentialFields(
        names: [
            "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-API-Key", "X-Auth-Token",
            "API-Key", "X-Amz-Security-Token",
        ])

    private init(names: [String]) {
        self.names = []
        self.compared = []
        add(names)
    }

    /// This list with more fields: a name already in it (in any spelling)
    /// is not added twice; a name that is no valid field name is ignored.
    /// - Parameter names: Field names, in any spelling.
    /// - Returns: The larger list.
    public func declaring(_ names: some Sequence<String>) -> CredentialFields {
        var copy = self
        copy.add(names)
        return copy
    }

    /// This list with the fields of `other` added.
    package func declaring(_ other: CredentialFields) -> CredentialFields {
        other.compared.isSubset(of: compared) ? self : declaring(other.names.map(\.rawName))
    }

    private mutating func add(_ given: some Sequence<String>) {
        for raw in given {
            guard let name = HTTPField.Name(raw), compared.insert(Self.normalized(name)).inserted else {
                continue
            }
            names.append(name)
        }
    }

    /// Whether `name` carries a credential, in whatever spelling.
    public func contains(_ name: HTTPField.Name) -> Bool {
        compared.contains(Self.normalized(name))
    }

    /// `name` as names are compared: its lowercase form without `-`, `_`,
    /// `.` and spaces (``Redaction/normalized(_:)``).
    private static func normalized(_ name: HTTPField.Name) -> String {
        Redaction.normalized(name.canonicalName)
    }

    // MARK: - What the pipeline asks

    /// `name: value` for each credential field in `fields`, one per line,
    /// names as compared, ordered by name (the values of one name in their
    /// order): the same for the same credentials however they are spelled
    /// or ordered on the request. Empty when there are none.
    package func lines(_ fields: HTTPFields) -> String {
        var found: [(name: String, value: String)] = []
        for field in fields {
            let name = Self.normalized(field.name)
            if compared.contains(name) { found.append((name, field.value)) }
        }
        guard !found.isEmpty else { return "" }
        // A stable sort by name: values of one name keep their order.
        let ordered = found.enumerated().sorted { lhs, rhs in
            lhs.element.name == rhs.element.name
                ? lhs.offset < rhs.offset : lhs.element.name < rhs.element.name
        }
        return ordered.map { "\($0.element.name): \($0.element.value)\n" }.joined()
    }

    /// The credential fields of `fields` whose values differ from those of
    /// `other`, by name (for a message: never the values).
    package func changed(_ fields: HTTPFields, _ other: HTTPFields) -> [String] {
        var names: [String] = []
        for name in Set((fields.map(\.name) + other.map(\.name)).filter(contains)) {
            if fields[values: name] != other[values: name] { names.append(name.rawName) }
        }
        return names.sorted()
    }

    /// The field that is a proxy's credential and so never a request's own
    /// (`Proxy-Authorization`): a transport hands a request's fields to the
    /// origin — inside a `CONNECT` tunnel, to the origin alone — so the
    /// pipeline refuses a request that carries it (``RequestHeadCheck``); a
    /// proxy's credentials are given with the proxy, and its transport sends
    /// them to the proxy only.
    package static let proxyOnly: HTTPField.Name = .proxyAuthorization

    /// `fields` without the credential fields.
    package func removed(from fields: HTTPFields) -> HTTPFields {
        fields.contains(where: { contains($0.name) })
            ? HTTPFields(fields.filter { !contains($0.name) }) : fields
    }

    /// What tells the owner of `request`'s credential apart, for a key:
    /// `Principal: …` when an authenticator vouched for the credential fields
    /// the request carries now (a refreshed token of the same principal gives
    /// the same line), else the fields' own ``lines(_:)``.
    /// - Returns: The lines, and whether they name a signed principal.
    package func identity(of request: OutgoingRequest) -> (lines: String, signed: Bool) {
        let lines = lines(request.head.headerFields)
        guard let signed = request.signedPrincipal, signed.fields == lines else { return (lines, false) }
        return ("Principal: \(signed.name)\n", true)
    }

    // MARK: - Hashable

    /// Whether both lists hold the same fields, however spelled or ordered.
    public static func == (lhs: CredentialFields, rhs: CredentialFields) -> Bool {
        lhs.compared == rhs.compared
    }

    /// Hashes the fields as they are compared.
    public func hash(into hasher: inout Hasher) { hasher.combine(compared) }
}

/// A component that hides values in what it writes for people (a logger, a
/// tracer): the header fields its ``Redaction`` hides are credentials of
/// every call it takes part in (``CredentialFields``), so what is too secret
/// to log is never shared between callers either.
public protocol Redacting: Sendable {
    /// What it hides.
    var redaction: Redaction { get }
}
