public import HTTPTypes

/// A server the API lives on: base URLs per environment, headers and the
/// envelope format its responses use.
///
/// Apps usually have a few: `.api`, `.payment`, `.upload`. Declare them once
/// as static members and every endpoint names its node:
///
/// ```swift
/// extension Node {
///     static let api = Node("api", urls: [.production: "https://api.example.com/v1",
///                                         .development: "https://dev.example.com/v1"],
///                           envelope: .standard)
/// }
/// ```
///
/// Base URLs are taken apart once, when the node is made or its ``urls``
/// change, not on every call. The fields live in one shared, copy-on-write
/// box, so copying a node (every call's context holds one) costs one
/// reference count.
public struct Node: Sendable, Hashable {
    /// The stored fields, in a box shared between copies until one changes.
    private var box: SharedFields<Fields>

    /// A name for logs and metrics.
    public var name: String {
        get { box.fields.name }
        set { SharedFields.unique(&box).fields.name = newValue }
    }
    /// The base URL for each environment.
    public var urls: [ServerEnvironment: String] {
        get { box.fields.urls }
        set {
            let writable = SharedFields.unique(&box)
            writable.fields.urls = newValue
            writable.fields.parsedURLs = Self.parse(newValue)
            writable.fields.everyEnvironment = Self.everyEnvironment(writable.fields.parsedURLs, newValue)
        }
    }
    /// ``urls`` taken apart, for the ones that are valid base URLs.
    var parsedURLs: [ServerEnvironment: BaseURL] { box.fields.parsedURLs }
    /// Headers sent with every request to this node (an endpoint's own win).
    public var headers: HTTPFields {
        get { box.fields.headers }
        set { SharedFields.unique(&box).fields.headers = newValue }
    }
    /// The envelope the node's responses are wrapped in, if any.
    public var envelope: EnvelopeFormat? {
        get { box.fields.envelope }
        set { SharedFields.unique(&box).fields.envelope = newValue }
    }
    /// What other Courier modules keep on the node (CourierResilience's
    /// failover).
    package var attachments: NodeAttachments {
        get { box.fields.attachments }
        set { SharedFields.unique(&box).fields.attachments = newValue }
    }
    /// Interceptors, plugins and business codes for every endpoint on the node.
    var components: NodeComponents {
        get { box.fields.components }
        set { SharedFields.unique(&box).fields.components = newValue }
    }

    /// Creates a node with a base URL per environment.
    public init(
        _ name: String,
        urls: [ServerEnvironment: String],
        headers: HTTPFields = [:],
        envelope: EnvelopeFormat? = nil
    ) {
        let parsed = Self.parse(urls)
        box = SharedFields(
            Fields(
                name: name, urls: urls, parsedURLs: parsed,
                everyEnvironment: Self.everyEnvironment(parsed, urls),
                headers: headers, envelope: envelope))
    }

    /// Equal when name, URLs, headers, envelope and attachments are, and the interceptors,
    /// plugins and business codes are the same set.
    public static func == (lhs: Node, rhs: Node) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    /// Hashes name, URLs, headers, envelope, attachments and components.
    public func hash(into hasher: inout Hasher) { hasher.combine(box.fields) }

    /// The fields themselves.
    private struct Fields: Sendable, Hashable {
        var name: String
        var urls: [ServerEnvironment: String]
        /// Derived from `urls`; kept in step by the `urls` setter.
        var parsedURLs: [ServerEnvironment: BaseURL]
        /// The one base URL of a node that has only a production URL: it
        /// serves every environment, without a lookup. Derived from `urls` too.
        var everyEnvironment: BaseURL?
        var headers: HTTPFields
        var envelope: EnvelopeFormat?
        var attachments = NodeAttachments()
        var components = NodeComponents.none
    }

    /// Creates a node with one base URL for every environment.
    public init(_ name: String, baseURL: String, headers: HTTPFields = [:], envelope: EnvelopeFormat? = nil) {
        self.init(name, urls: [.production: baseURL], headers: headers, envelope: envelope)
    }

    /// The base URL for an environment, falling back to production when the
    /// node has a single URL.
    public func baseURL(for environment: ServerEnvironment) throws(CourierError) -> String {
        try urls[resolvedEnvironment(environment)] ?? ""
    }

    /// The parsed base URL for an environment, for the request builder.
    /// - Throws: ``CourierError/Code/invalidRequest`` when the node has no URL
    ///   for the environment, or it is not an http(s) URL with a host.
    package func parsedBaseURL(for environment: ServerEnvironment) throws(CourierError) -> BaseURL {
        if let parsed = box.fields.everyEnvironment ?? parsedURLs[environment] { return parsed }
        let key = try resolvedEnvironment(environment)
        guard let parsed = parsedURLs[key] else {
            throw CourierError(
                .invalidRequest, stage: .build,
                message:
                    "node \(name) has an invalid base URL \"\(Redaction.standard.url(urls[key] ?? ""))\" "
                    + "(need http:// or https:// and an ASCII host name or IP address)")
        }
        return parsed
    }

    private func resolvedEnvironment(_ environment: ServerEnvironment) throws(CourierError)
        -> ServerEnvironment
    {
        if urls[environment] != nil { return environment }
        if urls.count == 1, urls[.production] != nil { return .production }
        let known = urls.keys.map(\.rawValue).sorted().joined(separator: ", ")
        throw CourierError(
            .invalidRequest, stage: .build,
            message: "node \(name) has no base URL for environment \(environment.rawValue) (it has: \(known))"
        )
    }

    private static func parse(_ urls: [ServerEnvironment: String]) -> [ServerEnvironment: BaseURL] {
        urls.compactMapValues(BaseURL.init)
    }

    private static func everyEnvironment(
        _ parsed: [ServerEnvironment: BaseURL], _ urls: [ServerEnvironment: String]
    ) -> BaseURL? {
        urls.count == 1 ? parsed[.production] : nil
    }
}

/// Which deployment of the servers to talk to; switch it on the client.
public struct ServerEnvironment: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    /// The name.
    public let rawValue: String
    /// Creates an environment.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates an environment from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Production.
    public static let production = ServerEnvironment(rawValue: "production")
    /// Development.
    public static let development = ServerEnvironment(rawValue: "development")
    /// A mock server.
    public static let mock = ServerEnvironment(rawValue: "mock")
}
