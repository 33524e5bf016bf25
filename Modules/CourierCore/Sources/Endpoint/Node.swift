import HTTPTypes

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
public struct Node: Sendable, Hashable {
    /// A name for logs and metrics.
    public var name: String
    /// The base URL for each environment.
    public var urls: [ServerEnvironment: String]
    /// Headers sent with every request to this node (an endpoint's own win).
    public var headers: HTTPFields
    /// The envelope the node's responses are wrapped in, if any.
    public var envelope: EnvelopeFormat?

    /// Creates a node with a base URL per environment.
    public init(
        _ name: String,
        urls: [ServerEnvironment: String],
        headers: HTTPFields = [:],
        envelope: EnvelopeFormat? = nil
    ) {
        self.name = name
        self.urls = urls
        self.headers = headers
        self.envelope = envelope
    }

    /// Creates a node with one base URL for every environment.
    public init(_ name: String, baseURL: String, headers: HTTPFields = [:], envelope: EnvelopeFormat? = nil) {
        self.init(name, urls: [.production: baseURL], headers: headers, envelope: envelope)
    }

    /// The base URL for an environment, falling back to production when the
    /// node has a single URL.
    public func baseURL(for environment: ServerEnvironment) throws(CourierError) -> String {
        if let url = urls[environment] { return url }
        if urls.count == 1, let only = urls[.production] { return only }
        let known = urls.keys.map(\.rawValue).sorted().joined(separator: ", ")
        throw CourierError(
            .invalidRequest, stage: .build,
            message: "node \(name) has no base URL for environment \(environment.rawValue) (it has: \(known))"
        )
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
