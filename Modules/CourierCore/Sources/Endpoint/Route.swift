public import HTTPTypes

/// An HTTP method and a path, fused in one value: `.get("users/\(id)")`.
public struct Route: Sendable, Hashable, CustomStringConvertible {
    /// The method.
    public var method: HTTPRequest.Method
    /// The path, relative to the node's base URL.
    public var path: RoutePath

    /// Creates a route from any method; ``get(_:)``, ``post(_:)`` and the
    /// others read better for the common ones.
    /// - Parameters:
    ///   - method: The request method, `QUERY` or any other extension method included.
    ///   - path: The path below the node's base URL; interpolated values are
    ///     escaped as one segment each.
    public init(_ method: HTTPRequest.Method, _ path: RoutePath) {
        self.method = method
        self.path = path
    }

    /// `GET path`.
    public static func get(_ path: RoutePath) -> Route { Route(.get, path) }
    /// `POST path`.
    public static func post(_ path: RoutePath) -> Route { Route(.post, path) }
    /// `PUT path`.
    public static func put(_ path: RoutePath) -> Route { Route(.put, path) }
    /// `PATCH path`.
    public static func patch(_ path: RoutePath) -> Route { Route(.patch, path) }
    /// `DELETE path`.
    public static func delete(_ path: RoutePath) -> Route { Route(.delete, path) }
    /// `HEAD path`.
    public static func head(_ path: RoutePath) -> Route { Route(.head, path) }
    /// `OPTIONS path`.
    public static func options(_ path: RoutePath) -> Route { Route(.options, path) }

    /// `METHOD template`, e.g. `GET users/{Int}`: safe for logs and metric labels.
    public var description: String { "\(method) \(path.template)" }
}
