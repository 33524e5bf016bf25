/// What interceptors and plugins know about the call they are part of.
public struct CallContext: Sendable {
    /// A number unique to this call within the process, for correlating logs.
    public let callID: UInt64
    /// The endpoint's name for logs: its route with placeholders, e.g. `GET users/{}`.
    public let name: String
    /// The route.
    public let route: Route
    /// The node the call goes to.
    public let node: Node
    /// The environment the base URL was chosen for.
    public let environment: ServerEnvironment
    /// The attempt, from 1, for per-attempt interceptors and plugins; 0 in the
    /// per-call tier, which runs around all attempts.
    public internal(set) var attempt: Int

    /// Creates a context; the client makes these, tests may too.
    public init(
        callID: UInt64, name: String, route: Route, node: Node, environment: ServerEnvironment, attempt: Int
    ) {
        self.callID = callID
        self.name = name
        self.route = route
        self.node = node
        self.environment = environment
        self.attempt = attempt
    }
}
