/// What interceptors and plugins know about the call they are part of.
public struct CallContext: Sendable {
    /// A number unique to this call within the process, for correlating logs.
    public let callID: UInt64
    /// The route.
    public let route: Route
    /// The node the call goes to.
    public let node: Node
    /// The environment the base URL was chosen for.
    public let environment: ServerEnvironment
    /// The attempt, from 1, for per-attempt interceptors and plugins; 0 in the
    /// per-call tier, which runs around all attempts. Numbers go on across
    /// every `next` a per-call interceptor makes and across replays.
    public internal(set) var attempt: Int
    /// Whether the endpoint wants its calls authenticated: `false` for one
    /// marked ``Endpoint/withoutAuthentication()``, which an
    /// ``Authenticator`` (and any interceptor of yours that signs) leaves alone.
    public let authenticates: Bool
    /// Cancellation of the call from outside its task (``APIClient/cancelAll()``,
    /// a concurrency policy): an interceptor that waits for something of
    /// its own (a token refresh) stops waiting when it fires. `nil` in a
    /// context made by hand.
    public let cancellation: CallCancellation?
    /// Which pass through the pipeline this is: 0 for the call's first, then
    /// 1, 2, … for each time a response handler ran the call again.
    public internal(set) var replay: Int
    /// Whether the call is part of an ``Authenticator``'s refresh (made by a
    /// ``CredentialProvider``'s `refresh`): it passes that authenticator
    /// unsigned. For logs, and for interceptors that sign requests of their own.
    public let isCredentialRefresh: Bool
    /// Whether a response cache started the call in the background, to
    /// refresh a stored response it answered with (`stale-while-revalidate`,
    /// or the `alsoNetwork` read modes): nobody awaits its result, so a
    /// plugin's ``Plugin/process(_:context:)`` is where its failure is seen.
    public let isBackgroundRefresh: Bool
    /// What the client running the call shares; `nil` in a context made by hand.
    let services: ClientServices?

    /// The name given at creation, when one was.
    private let givenName: String?
    /// What other Courier modules keep on the endpoint (an access token
    /// plugin's authorization type).
    package var attachments = EndpointAttachments()
    /// The request body about to be sent, for plugins of Courier's own
    /// (``Plugin`` hooks see the head only); set for each attempt.
    package var requestBody: RequestBody?

    /// The client running the call, `nil` in a context made by hand: an
    /// ``Authenticator`` refreshes through it.
    package var client: APIClient? { services.map(APIClient.init(services:)) }

    /// The endpoint's name for logs: its route with placeholders, e.g. `GET users/{id}`.
    public var name: String { givenName ?? route.description }

    /// Creates a context; the client makes these, tests may too.
    public init(
        callID: UInt64, name: String, route: Route, node: Node, environment: ServerEnvironment, attempt: Int,
        replay: Int = 0, authenticates: Bool = true, cancellation: CallCancellation? = nil
    ) {
        self.callID = callID
        self.givenName = name
        self.route = route
        self.node = node
        self.environment = environment
        self.attempt = attempt
        self.replay = replay
        self.authenticates = authenticates
        self.cancellation = cancellation
        self.isCredentialRefresh = false
        self.isBackgroundRefresh = false
        self.services = nil
    }

    /// The pipeline's context: the name is the route's, made only when read.
    init(
        callID: UInt64, route: Route, node: Node, environment: ServerEnvironment, replay: Int,
        authenticates: Bool, cancellation: CallCancellation?, attachments: EndpointAttachments,
        services: ClientServices, isCredentialRefresh: Bool, isBackgroundRefresh: Bool
    ) {
        self.attachments = attachments
        self.callID = callID
        self.givenName = nil
        self.route = route
        self.node = node
        self.environment = environment
        self.attempt = 0
        self.replay = replay
        self.authenticates = authenticates
        self.cancellation = cancellation
        self.services = services
        self.isCredentialRefresh = isCredentialRefresh
        self.isBackgroundRefresh = isBackgroundRefresh
    }
}
